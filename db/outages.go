package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Outage is a failing streak of a collection: harvests that failed one
// after another, from the first to the last, and the success that ended
// them.
type Outage struct {
	ID           int64
	CollectionID int64
	StartedAt    time.Time  // when the first failed harvest finished
	LastFailedAt time.Time  // when the last one did
	EndedAt      *time.Time // when the harvest that worked again finished; nil while failing
	Failures     int
	Error        string // the last failure, a sentence for people
	// NoticedAt is when the first failed harvest more than the threshold
	// given to Outages after StartedAt finished: the moment the streak
	// became worth telling a feed's readers.
	NoticedAt time.Time
	// NoticedError is the error of that harvest, so what the feed says of
	// the streak does not change as later harvests fail differently.
	NoticedError string
}

// recordOutage extends, opens or closes the collection's failing streak
// with the run being stored, in the run's transaction.
func recordOutage(ctx context.Context, tx *sql.Tx, run Run) error {
	at := fmtTime(run.FinishedAt)
	if run.Error == "" {
		_, err := tx.ExecContext(ctx, `UPDATE outages SET ended_at = ? WHERE collection_id = ? AND ended_at IS NULL`, at, run.CollectionID)
		if err != nil {
			return fmt.Errorf("close outage: %w", err)
		}
		return nil
	}
	res, err := tx.ExecContext(ctx, `
UPDATE outages SET last_failed_at = ?, failures = failures + 1, error = ?
WHERE collection_id = ? AND ended_at IS NULL`, at, run.Error, run.CollectionID)
	if err != nil {
		return fmt.Errorf("extend outage: %w", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO outages (collection_id, started_at, last_failed_at, error) VALUES (?, ?, ?, ?)`,
		run.CollectionID, at, at, run.Error)
	if err != nil {
		return fmt.Errorf("open outage: %w", err)
	}
	return nil
}

// Outages returns the failing streaks in scope that harvests saw last
// longer than failingAfter, oldest first, each with its NoticedAt. A
// streak counts from its first failed harvest, and only failed harvests
// tell how long it lasted, so the answer changes only when a harvest is
// stored.
func (d *DB) Outages(ctx context.Context, scope Scope, failingAfter time.Duration) ([]Outage, error) {
	where, arg := scope.where("o")
	all, err := queryAll(ctx, d, "load outages", `
SELECT o.id, o.collection_id, o.started_at, o.last_failed_at, o.ended_at, o.failures, o.error
FROM outages o WHERE `+where+` ORDER BY o.started_at, o.id`, scanOutage, arg)
	if err != nil {
		return nil, err
	}
	var out []Outage
	for _, o := range all {
		if o.LastFailedAt.Sub(o.StartedAt) <= failingAfter {
			continue
		}
		// The runs may have been pruned; then the last failure saw it.
		o.NoticedAt, o.NoticedError = o.LastFailedAt, o.Error
		err := d.r.QueryRowContext(ctx, `
SELECT finished_at, error FROM runs
WHERE collection_id = ? AND error <> '' AND finished_at > ? AND finished_at <= ?
ORDER BY finished_at, id LIMIT 1`,
			o.CollectionID, fmtTime(o.StartedAt.Add(failingAfter)), fmtTime(o.LastFailedAt)).Scan(timeCol{&o.NoticedAt}, &o.NoticedError)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("db: load outage %d: %w", o.ID, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func scanOutage(row scanner) (Outage, error) {
	var o Outage
	var ended nullTime
	err := row.Scan(&o.ID, &o.CollectionID, timeCol{&o.StartedAt}, timeCol{&o.LastFailedAt}, &ended, &o.Failures, &o.Error)
	o.EndedAt = ended.t
	return o, err
}
