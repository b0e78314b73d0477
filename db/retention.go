package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Retention says what PruneHistory keeps of each collection's history.
type Retention struct {
	// Before: changes dated before it, and harvest runs finished before
	// it, may go.
	Before time.Time
	// Keep is how many of each collection's newest changes stay whatever
	// their age; at least one.
	Keep int
}

// Pruned counts what PruneHistory deleted.
type Pruned struct {
	Collections int // collections that lost changes
	Changes     int64
	Runs        int64
	Snapshots   int64
}

// pruneChunk bounds the changes one transaction deletes: the first sweep
// of years of history leaves the writer to harvests in between.
const pruneChunk = 2000

// querier is the writer's transaction or the read pool.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// PruneHistory deletes the history retention r no longer keeps: of each
// collection, the changes dated before r.Before but its newest r.Keep
// and those at or after its watermark (a change list read again from
// there must find them, or they would come back as new); the runs that
// found nothing, or whose changes are all gone, finished before r.Before,
// but each collection's and site's newest (the run counts of partly
// pruned harvests are lowered, so their digests stay right); and, of the
// sites harvested or pruned since they were last measured, the page
// snapshots nothing needs any more (see pruneSnapshots). A collection
// that lost changes remembers the newest it lost (PrunedUntil). Sites
// whose history was deleted are left alone.
func (d *DB) PruneHistory(ctx context.Context, r Retention) (Pruned, error) {
	r.Keep = max(r.Keep, 1)
	cutoff := fmtTime(r.Before)
	var p Pruned
	cols, err := queryAll(ctx, d, "list collections to prune", `
SELECT c.id FROM collections c JOIN sites s ON s.id = c.site_id
WHERE s.history_deleted_at IS NULL AND (
	EXISTS (SELECT 1 FROM changes WHERE collection_id = c.id AND datetime < ?1)
	OR EXISTS (SELECT 1 FROM runs WHERE collection_id = c.id AND changes = 0 AND finished_at < ?1))
ORDER BY c.id`, scanID, cutoff)
	if err != nil {
		return p, err
	}
	if err := d.pruneCollections(ctx, cols, r, &p); err != nil {
		return p, fmt.Errorf("db: %w", err)
	}
	sites, err := queryAll(ctx, d, "list sites to prune", `
SELECT id FROM sites WHERE history_deleted_at IS NULL AND (measured_at IS NULL
	OR EXISTS (SELECT 1 FROM runs WHERE site_id = sites.id AND collection_id IS NULL AND finished_at < ?))
ORDER BY id`, scanID, cutoff)
	if err != nil {
		return p, err
	}
	for _, id := range sites {
		k, err := d.pruneRuns(ctx, `site_id = ?1 AND collection_id IS NULL AND finished_at < ?2
	AND id < (SELECT max(id) FROM runs WHERE site_id = ?1 AND collection_id IS NULL)`, id, cutoff)
		p.Runs += k
		if err != nil {
			return p, fmt.Errorf("db: prune the runs of site %d: %w", id, err)
		}
		k, err = d.pruneSnapshots(ctx, id)
		p.Snapshots += k
		if err != nil {
			return p, fmt.Errorf("db: prune the snapshots of site %d: %w", id, err)
		}
	}
	return p, nil
}

// pruneCollections deletes, of each collection of cols, the changes r no
// longer keeps and the runs left without them, counting into p.
func (d *DB) pruneCollections(ctx context.Context, cols []int64, r Retention, p *Pruned) error {
	cutoff := fmtTime(r.Before)
	for _, id := range cols {
		n, err := d.pruneChanges(ctx, id, r)
		p.Changes += n
		if n > 0 {
			p.Collections++
		}
		if err != nil {
			return fmt.Errorf("prune the changes of collection %d: %w", id, err)
		}
		k, err := d.pruneRuns(ctx, collectionRunsGone, id, cutoff)
		p.Runs += k
		if err != nil {
			return fmt.Errorf("prune the runs of collection %d: %w", id, err)
		}
	}
	return nil
}

// collectionRunsGone is pruneRuns' where of the runs of collection ?1
// that go: finished before the cutoff ?2, left without changes (the
// "now following" run once the changes it named are gone), but its
// newest.
const collectionRunsGone = `collection_id = ?1 AND finished_at < ?2 AND changes = 0
	AND id < (SELECT max(id) FROM runs WHERE collection_id = ?1)
	AND NOT EXISTS (SELECT 1 FROM changes WHERE run_id = runs.id)
	AND (NOT following OR NOT EXISTS (SELECT 1 FROM changes WHERE collection_id = ?1 AND id <= runs.last_change_id))`

func scanID(row scanner) (int64, error) {
	var id int64
	return id, row.Scan(&id)
}

// pruneChanges deletes a collection's changes past retention r, oldest
// first, a chunk a transaction, and returns how many it deleted.
func (d *DB) pruneChanges(ctx context.Context, colID int64, r Retention) (int64, error) {
	// Most collections have nothing past retention: a read finds out
	// without taking the writer.
	cond, args, err := pruneCond(ctx, d.r, colID, r)
	if err != nil || cond == "" {
		return 0, err
	}
	var found bool
	if err := d.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM changes ch WHERE `+cond+`)`, args...).Scan(&found); err != nil || !found {
		return 0, err
	}
	var total int64
	for {
		var n int64
		err := d.inTx(ctx, func(tx *sql.Tx) error {
			var err error
			n, err = d.pruneChunkTx(ctx, tx, colID, r)
			return err
		})
		total += n
		if err != nil || n < pruneChunk {
			return total, err
		}
	}
}

// pruneCond is the condition on changes (as ch) of a collection that
// retention r deletes; "" when it keeps them all.
func pruneCond(ctx context.Context, q querier, colID int64, r Retention) (string, []any, error) {
	// The Keep-th newest change, in the feeds' order: those after it go.
	var at timeText
	var id int64
	err := q.QueryRowContext(ctx, `SELECT datetime, id FROM changes WHERE collection_id = ?
ORDER BY datetime DESC, id DESC LIMIT 1 OFFSET ?`, colID, r.Keep-1).Scan(&at, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	limit := fmtTime(r.Before)
	var watermark timeText
	if err := q.QueryRowContext(ctx, `SELECT last_processed_at FROM collections WHERE id = ?`, colID).Scan(&watermark); err != nil {
		return "", nil, err
	}
	if watermark.Valid && watermark.String < limit {
		limit = watermark.String
	}
	return `ch.collection_id = ? AND ch.datetime < ? AND (ch.datetime < ? OR (ch.datetime = ? AND ch.id < ?))`,
		[]any{colID, limit, at.String, at.String, id}, nil
}

// pruneChunkTx deletes the oldest pruneChunk changes of a collection that
// retention r deletes, lowering the change counts of the runs that had
// put them in the feed, and returns how many it deleted.
func (d *DB) pruneChunkTx(ctx context.Context, tx *sql.Tx, colID int64, r Retention) (int64, error) {
	cond, args, err := pruneCond(ctx, tx, colID, r)
	if err != nil || cond == "" {
		return 0, err
	}
	var lastAt timeText
	var lastID int64
	err = tx.QueryRowContext(ctx, `SELECT ch.datetime, ch.id FROM changes ch WHERE `+cond+`
ORDER BY ch.datetime, ch.id LIMIT 1 OFFSET ?`, append(slices.Clone(args), pruneChunk-1)...).Scan(&lastAt, &lastID)
	switch {
	case err == nil:
		cond += ` AND (ch.datetime < ? OR (ch.datetime = ? AND ch.id <= ?))`
		args = append(args, lastAt.String, lastAt.String, lastID)
	case !errors.Is(err, sql.ErrNoRows):
		return 0, err
	}
	var newest timeText
	if err := tx.QueryRowContext(ctx, `SELECT max(ch.datetime) FROM changes ch WHERE `+cond, args...).Scan(&newest); err != nil || !newest.Valid {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `
UPDATE runs SET changes = `+d.eng.pick("max", "GREATEST")+`(0, changes - (SELECT count(*) FROM changes ch WHERE ch.run_id = runs.id AND `+cond+`))
WHERE id IN (SELECT ch.run_id FROM changes ch WHERE ch.run_id IS NOT NULL AND `+cond+`)`, append(slices.Clone(args), args...)...)
	if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM changes AS ch WHERE `+cond, args...)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, d.eng.pick(`UPDATE collections SET pruned_until = max(COALESCE(pruned_until, ''), ?) WHERE id = ?`,
		`UPDATE collections SET pruned_until = GREATEST(pruned_until, ?) WHERE id = ?`),
		newest.String, colID); err != nil {
		return 0, err
	}
	// Measured again, and its snapshots looked at, by the next sweep.
	_, err = tx.ExecContext(ctx, `UPDATE sites SET measured_at = NULL WHERE id = (SELECT site_id FROM collections WHERE id = ?)`, colID)
	return n, err
}

// pruneRuns deletes the runs that match where, whose ?1 is id and ?2 the
// cutoff, and returns how many it deleted.
func (d *DB) pruneRuns(ctx context.Context, where string, id int64, cutoff string) (int64, error) {
	var found bool
	if err := d.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM runs WHERE `+where+`)`, id, cutoff).Scan(&found); err != nil || !found {
		return 0, err
	}
	var n int64
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE `+where, id, cutoff)
		if err == nil {
			n, _ = res.RowsAffected()
		}
		return err
	})
	return n, err
}

// pruneSnapshots deletes the snapshots of a site's pages that nothing
// needs any more, and returns how many. A snapshot is what the page's
// next version is compared with: it stays while a collection of the site
// lists the page or watches it, while the page waits for a snapshot, and,
// for a collection that keeps no list of its pages (a change list), while
// a change of the page is kept.
func (d *DB) pruneSnapshots(ctx context.Context, siteID int64) (int64, error) {
	var n int64
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
DELETE FROM snapshots WHERE site_id = ?1
	AND NOT EXISTS (SELECT 1 FROM pages p JOIN collections c ON c.id = p.collection_id
		WHERE c.site_id = ?1 AND p.url = snapshots.url)
	AND NOT EXISTS (SELECT 1 FROM watched_pages w JOIN collections c ON c.id = w.collection_id
		WHERE c.site_id = ?1 AND w.url = snapshots.url)
	AND NOT EXISTS (SELECT 1 FROM snapshot_queue q WHERE q.site_id = ?1 AND q.url = snapshots.url)
	AND NOT EXISTS (SELECT 1 FROM changes ch JOIN collections c ON c.id = ch.collection_id
		WHERE c.site_id = ?1 AND ch.url = snapshots.url
		AND NOT EXISTS (SELECT 1 FROM pages WHERE collection_id = c.id)
		AND NOT EXISTS (SELECT 1 FROM watched_pages WHERE collection_id = c.id))`, siteID)
		if err == nil {
			n, _ = res.RowsAffected()
		}
		return err
	})
	return n, err
}

// Kept is where what a collection keeps of its history begins: Until is
// the newest change time the retention sweep deleted (PrunedUntil).
type Kept struct {
	CollectionID int64
	Until        time.Time
}

// KeptSince lists the collections in scope whose history was pruned, with
// how far, so that their feeds can say where what they keep ends.
func (d *DB) KeptSince(ctx context.Context, scope Scope) ([]Kept, error) {
	where, arg := scope.where("k")
	return queryAll(ctx, d, "load pruned collections", `
SELECT k.collection_id, k.pruned_until FROM (SELECT id AS collection_id, pruned_until FROM collections WHERE pruned_until IS NOT NULL) k
WHERE `+where+` ORDER BY k.collection_id`, func(row scanner) (Kept, error) {
		var k Kept
		return k, row.Scan(&k.CollectionID, timeCol{&k.Until})
	}, arg)
}
