package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// PendingText names a change whose page was not read in its harvest, past
// the site's budget of page fetches: the page is fetched at a later
// harvest, if no later change of it came first, and its text fills the
// change in (TextFill). A site keeps one a page, its latest.
type PendingText struct {
	CollectionID int64
	URL          string
	Kind         string
	Datetime     time.Time
}

// TextFill gives a pending change what its page's later snapshot found.
// The change's title is set only where it had none.
type TextFill struct {
	PendingText
	Title      string
	TextChange string
	Diff       string
}

// SnapshotQueue is what one collection harvest changes of the site's
// pending pages, stored with it.
type SnapshotQueue struct {
	// Queue adds or replaces the site's pending page of each URL.
	Queue []PendingText
	// Done removes pages from the site's pending ones: read, superseded,
	// deleted or given up.
	Done []string
	// Fills give pending changes their text.
	Fills []TextFill
	// Keep, when positive, bounds the site's pending pages: those of the
	// latest changes stay.
	Keep int
}

// PendingTexts returns up to limit of the collection's pending pages,
// latest change first.
func (d *DB) PendingTexts(ctx context.Context, siteID, collectionID int64, limit int) ([]PendingText, error) {
	return queryAll(ctx, d, fmt.Sprintf("load the pages pending a snapshot of collection %d", collectionID), `
SELECT collection_id, url, kind, datetime FROM snapshot_queue
WHERE site_id = ? AND collection_id = ? ORDER BY datetime DESC, url LIMIT ?`, func(row scanner) (PendingText, error) {
		var p PendingText
		err := row.Scan(&p.CollectionID, &p.URL, &p.Kind, timeCol{&p.Datetime})
		return p, err
	}, siteID, collectionID, max(limit, 0))
}

// saveSnapshotQueue applies q. Done goes first, so that a page both
// finished and queued again in one harvest stays queued.
func (d *DB) saveSnapshotQueue(ctx context.Context, tx *sql.Tx, siteID int64, q SnapshotQueue) error {
	for _, u := range q.Done {
		if _, err := tx.ExecContext(ctx, `DELETE FROM snapshot_queue WHERE site_id = ? AND url = ?`, siteID, u); err != nil {
			return fmt.Errorf("finish the pending page %s: %w", u, err)
		}
	}
	for _, p := range q.Queue {
		_, err := tx.ExecContext(ctx, `
INSERT INTO snapshot_queue (site_id, url, collection_id, kind, datetime) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (site_id, url) DO UPDATE SET
	collection_id = excluded.collection_id, kind = excluded.kind, datetime = excluded.datetime`,
			siteID, p.URL, p.CollectionID, p.Kind, fmtTime(p.Datetime))
		if err != nil {
			return fmt.Errorf("queue the page %s: %w", p.URL, err)
		}
	}
	if q.Keep > 0 && len(q.Queue) > 0 {
		_, err := tx.ExecContext(ctx, d.eng.pick(`
DELETE FROM snapshot_queue WHERE site_id = ? AND rowid NOT IN (
	SELECT rowid FROM snapshot_queue WHERE site_id = ? ORDER BY datetime DESC, url LIMIT ?)`, `
DELETE FROM snapshot_queue WHERE site_id = ? AND url NOT IN (
	SELECT url FROM snapshot_queue WHERE site_id = ? ORDER BY datetime DESC, url LIMIT ?)`), siteID, siteID, q.Keep)
		if err != nil {
			return fmt.Errorf("bound the pages pending a snapshot: %w", err)
		}
	}
	for _, f := range q.Fills {
		_, err := tx.ExecContext(ctx, `
UPDATE changes SET text_change = ?, diff = ?, title = CASE WHEN title = '' THEN ? ELSE title END
WHERE collection_id = ? AND url = ? AND kind = ? AND datetime = ?`,
			f.TextChange, storedDiff(f.Diff), f.Title, f.CollectionID, f.URL, f.Kind, fmtTime(f.Datetime))
		if err != nil {
			return fmt.Errorf("fill in the text of the change of %s: %w", f.URL, err)
		}
	}
	return nil
}
