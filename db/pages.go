package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Page is what a protocol that lists pages (SCP, ARC) last said of one page
// of a collection: enough to tell a created page from an updated or an
// unchanged one, to notice one that vanished, and to title its entry when
// it does.
type Page struct {
	URL      string
	Modified *time.Time
	Hash     string // a digest of the page's content, protocol-defined
	Title    string
	Summary  string
}

// Pages returns a collection's known pages by URL.
func (d *DB) Pages(ctx context.Context, collectionID int64) (map[string]Page, error) {
	list, err := queryAll(ctx, d, fmt.Sprintf("load pages of collection %d", collectionID),
		`SELECT url, modified, hash, title, summary FROM pages WHERE collection_id = ?`, func(row scanner) (Page, error) {
			var p Page
			var mod nullTime
			err := row.Scan(&p.URL, &mod, &p.Hash, &p.Title, &p.Summary)
			p.Modified = mod.t
			return p, err
		}, collectionID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Page, len(list))
	for _, p := range list {
		out[p.URL] = p
	}
	return out, nil
}

// Processed returns the documents (deltas) of a collection already
// processed, by the keys they were stored under (see
// CollectionHarvest.Processed).
func (d *DB) Processed(ctx context.Context, collectionID int64) (map[string]bool, error) {
	list, err := queryAll(ctx, d, fmt.Sprintf("load processed documents of collection %d", collectionID),
		`SELECT url FROM processed WHERE collection_id = ?`, func(row scanner) (string, error) {
			var u string
			return u, row.Scan(&u)
		}, collectionID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(list))
	for _, u := range list {
		out[u] = true
	}
	return out, nil
}

func savePages(ctx context.Context, tx *sql.Tx, collectionID int64, h CollectionHarvest) error {
	for _, p := range h.Pages {
		_, err := tx.ExecContext(ctx, `
INSERT INTO pages (collection_id, url, modified, hash, title, summary) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (collection_id, url) DO UPDATE SET modified = excluded.modified, hash = excluded.hash,
	title = excluded.title, summary = excluded.summary`,
			collectionID, p.URL, fmtTimePtr(p.Modified), p.Hash, p.Title, p.Summary)
		if err != nil {
			return fmt.Errorf("store page %s: %w", p.URL, err)
		}
	}
	for _, u := range h.Gone {
		if _, err := tx.ExecContext(ctx, `DELETE FROM pages WHERE collection_id = ? AND url = ?`, collectionID, u); err != nil {
			return fmt.Errorf("forget page %s: %w", u, err)
		}
	}
	now := fmtTime(time.Now())
	for _, u := range h.Processed {
		_, err := tx.ExecContext(ctx, `INSERT INTO processed (collection_id, url, processed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			collectionID, u, now)
		if err != nil {
			return fmt.Errorf("mark %s processed: %w", u, err)
		}
	}
	return nil
}
