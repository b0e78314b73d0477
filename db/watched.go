package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// WatchedPage is one page a pages collection watches.
type WatchedPage struct {
	URL       string
	Depth     int       // links from where the crawl started
	CheckedAt time.Time // last read, 304s included
	ByHand    bool      // added by a person, by its address
}

// WatchedPages returns the pages a collection watches, the longest
// unread first.
func (d *DB) WatchedPages(ctx context.Context, collectionID int64) ([]WatchedPage, error) {
	return queryAll(ctx, d, fmt.Sprintf("load watched pages of collection %d", collectionID), `
SELECT url, depth, checked_at, by_hand FROM watched_pages WHERE collection_id = ? ORDER BY checked_at, url`,
		func(row scanner) (WatchedPage, error) {
			var w WatchedPage
			err := row.Scan(&w.URL, &w.Depth, timeCol{&w.CheckedAt}, &w.ByHand)
			return w, err
		}, collectionID)
}

// saveWatched records the pages read in a harvest and forgets those gone,
// in the harvest's transaction.
func (d *DB) saveWatched(ctx context.Context, tx *sql.Tx, collectionID int64, h CollectionHarvest) error {
	q := d.eng.pick(`
INSERT INTO watched_pages (collection_id, url, depth, checked_at, by_hand) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (collection_id, url) DO UPDATE SET depth = min(depth, excluded.depth),
	checked_at = excluded.checked_at, by_hand = by_hand OR excluded.by_hand`, `
INSERT INTO watched_pages AS w (collection_id, url, depth, checked_at, by_hand) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (collection_id, url) DO UPDATE SET depth = LEAST(w.depth, excluded.depth),
	checked_at = excluded.checked_at, by_hand = w.by_hand OR excluded.by_hand`)
	for _, w := range h.Watched {
		_, err := tx.ExecContext(ctx, q,
			collectionID, w.URL, w.Depth, fmtTime(w.CheckedAt), w.ByHand)
		if err != nil {
			return fmt.Errorf("store watched page %s: %w", w.URL, err)
		}
	}
	for _, u := range h.Gone {
		if _, err := tx.ExecContext(ctx, `DELETE FROM watched_pages WHERE collection_id = ? AND url = ?`, collectionID, u); err != nil {
			return fmt.Errorf("forget watched page %s: %w", u, err)
		}
	}
	return nil
}
