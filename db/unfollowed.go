package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// DeleteUnfollowedHistory deletes what is stored of each site whose last
// follower left at or before before: its changes, runs, pages and fetch
// state. The site and its collections stay, emptied as if never harvested,
// so that their feeds can still answer that they have ended and a new
// follower starts them afresh under the same addresses. It returns how
// many sites it emptied, and writes nothing when there are none, so that
// calling it often costs the feed caches nothing.
func (d *DB) DeleteUnfollowedHistory(ctx context.Context, before time.Time) (int, error) {
	cutoff := fmtTime(before)
	ids, err := queryAll(ctx, d, "list unfollowed sites",
		`SELECT id FROM sites WHERE unfollowed_at <= ? AND history_deleted_at IS NULL`,
		func(row scanner) (int64, error) {
			var id int64
			return id, row.Scan(&id)
		}, cutoff)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	n := 0
	err = d.inTx(ctx, func(tx *sql.Tx) error {
		n = 0
		for _, id := range ids {
			// Checked again inside the transaction: someone may have
			// followed the site since.
			res, err := tx.ExecContext(ctx, `UPDATE sites SET history_deleted_at = ?, last_harvest_at = NULL,
	next_harvest_at = NULL, last_error = '', failures = 0, failing_since = NULL, discovered_at = NULL,
	stored_bytes = 0, measured_at = NULL
WHERE id = ? AND unfollowed_at <= ? AND history_deleted_at IS NULL`, fmtTime(time.Now()), id, cutoff)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k == 0 {
				continue
			}
			if err := emptySite(ctx, tx, id); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("db: delete the history of unfollowed sites: %w", err)
	}
	return n, nil
}

// emptySite deletes a site's harvest history and resets its collections
// to never harvested.
func emptySite(ctx context.Context, tx *sql.Tx, siteID int64) error {
	const cols = `(SELECT id FROM collections WHERE site_id = ?)`
	for _, q := range []string{
		`DELETE FROM changes WHERE collection_id IN ` + cols,
		`DELETE FROM pages WHERE collection_id IN ` + cols,
		`DELETE FROM processed WHERE collection_id IN ` + cols,
		`DELETE FROM outages WHERE collection_id IN ` + cols,
		`DELETE FROM runs WHERE site_id = ?`,
		`DELETE FROM fetch_state WHERE site_id = ?`,
		`DELETE FROM snapshots WHERE site_id = ?`,
		`DELETE FROM snapshot_queue WHERE site_id = ?`,
		`UPDATE collections SET last_processed_at = NULL, last_success_at = NULL, last_harvest_at = NULL,
	last_error = '', state = '', pruned_until = NULL WHERE site_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, siteID); err != nil {
			return err
		}
	}
	return nil
}

// ResumeSite harvests a site again whose last follower left, as following
// it again does; the command line's follow without a user uses it.
func (d *DB) ResumeSite(ctx context.Context, id int64) error {
	_, err := d.w.ExecContext(ctx, `UPDATE sites SET unfollowed_at = NULL, history_deleted_at = NULL WHERE id = ? AND unfollowed_at IS NOT NULL`, id)
	if err != nil {
		return fmt.Errorf("db: resume harvesting site %d: %w", id, err)
	}
	return nil
}
