package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// PageChecks returns when each of a collection's pages was last read to
// check it, by URL; pages never checked are absent. Sources that cannot
// trust a page's own dates re-read the oldest checks first.
func (d *DB) PageChecks(ctx context.Context, collectionID int64) (map[string]time.Time, error) {
	type row struct {
		url string
		at  time.Time
	}
	list, err := queryAll(ctx, d, fmt.Sprintf("load page checks of collection %d", collectionID),
		`SELECT url, checked_at FROM pages WHERE collection_id = ? AND checked_at IS NOT NULL`, func(s scanner) (row, error) {
			var r row
			return r, s.Scan(&r.url, timeCol{&r.at})
		}, collectionID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]time.Time, len(list))
	for _, r := range list {
		out[r.url] = r.at
	}
	return out, nil
}

// saveChecks records when pages were checked; it runs after savePages, so
// a page listed for the first time is there to be marked.
func saveChecks(ctx context.Context, tx *sql.Tx, collectionID int64, checked map[string]time.Time) error {
	for u, at := range checked {
		_, err := tx.ExecContext(ctx, `UPDATE pages SET checked_at = ? WHERE collection_id = ? AND url = ?`, fmtTime(at), collectionID, u)
		if err != nil {
			return fmt.Errorf("mark page %s checked: %w", u, err)
		}
	}
	return nil
}
