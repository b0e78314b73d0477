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

// WithdrawChanges deletes every stored change of the given pages of a
// collection, for pages a site now asks to keep out of indexes, and lowers
// the change counts of the runs that had put them in the feed so their
// digest entries stay right. It returns how many changes were deleted.
func (d *DB) WithdrawChanges(ctx context.Context, collectionID int64, urls []string) (int64, error) {
	// Most harvests have nothing to withdraw: a read finds out without
	// taking the writer.
	var found []string
	for start := 0; start < len(urls); start += withdrawChunk {
		match, args := withdrawMatch(collectionID, urls[start:min(start+withdrawChunk, len(urls))])
		list, err := queryAll(ctx, d, fmt.Sprintf("find changes to withdraw from collection %d", collectionID),
			`SELECT DISTINCT url FROM changes WHERE `+match, func(row scanner) (string, error) {
				var u string
				return u, row.Scan(&u)
			}, args...)
		if err != nil {
			return 0, err
		}
		found = append(found, list...)
	}
	if len(found) == 0 {
		return 0, nil
	}
	var n int64
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		for start := 0; start < len(found); start += withdrawChunk {
			match, args := withdrawMatch(collectionID, found[start:min(start+withdrawChunk, len(found))])
			_, err := tx.ExecContext(ctx, `
UPDATE runs SET changes = changes - (SELECT count(*) FROM changes WHERE run_id = runs.id AND `+match+`)
WHERE id IN (SELECT run_id FROM changes WHERE run_id IS NOT NULL AND `+match+`)`, append(args, args...)...)
			if err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM changes WHERE `+match, args...)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += k
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("db: withdraw changes of collection %d: %w", collectionID, err)
	}
	return n, nil
}

func withdrawMatch(collectionID int64, urls []string) (string, []any) {
	args := make([]any, 0, len(urls)+1)
	args = append(args, collectionID)
	for _, u := range urls {
		args = append(args, u)
	}
	return `collection_id = ? AND url IN (` + strings.TrimSuffix(strings.Repeat("?,", len(urls)), ",") + `)`, args
}
