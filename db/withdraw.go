package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// withdrawChunk bounds the URLs bound in one statement (SQLite's default
// limit on variables is 32,766; this stays far below).
const withdrawChunk = 500

// CountChangesOf counts the stored changes of the given pages of a
// collection: those a harvest's Withdraw would delete.
func (d *DB) CountChangesOf(ctx context.Context, collectionID int64, urls []string) (int64, error) {
	var n int64
	for start := 0; start < len(urls); start += withdrawChunk {
		match, args := withdrawMatch(collectionID, urls[start:min(start+withdrawChunk, len(urls))])
		var k int64
		if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM changes WHERE `+match, args...).Scan(&k); err != nil {
			return 0, fmt.Errorf("db: count the changes of %d pages of collection %d: %w", len(urls), collectionID, err)
		}
		n += k
	}
	return n, nil
}

// withdrawChanges deletes, in tx, every stored change of the given pages
// of a collection, for pages a site now asks to keep out of indexes, and
// lowers the change counts of the runs that had put them in the feed so
// their digest entries stay right.
func withdrawChanges(ctx context.Context, tx *sql.Tx, collectionID int64, urls []string) error {
	for start := 0; start < len(urls); start += withdrawChunk {
		match, args := withdrawMatch(collectionID, urls[start:min(start+withdrawChunk, len(urls))])
		_, err := tx.ExecContext(ctx, `
UPDATE runs SET changes = changes - (SELECT count(*) FROM changes WHERE run_id = runs.id AND `+match+`)
WHERE id IN (SELECT run_id FROM changes WHERE run_id IS NOT NULL AND `+match+`)`, append(args, args...)...)
		if err != nil {
			return fmt.Errorf("withdraw changes: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM changes WHERE `+match, args...); err != nil {
			return fmt.Errorf("withdraw changes: %w", err)
		}
	}
	return nil
}

func withdrawMatch(collectionID int64, urls []string) (string, []any) {
	args := make([]any, 0, len(urls)+1)
	args = append(args, collectionID)
	for _, u := range urls {
		args = append(args, u)
	}
	return `collection_id = ? AND url IN (` + strings.TrimSuffix(strings.Repeat("?,", len(urls)), ",") + `)`, args
}
