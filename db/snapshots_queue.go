package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
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
	// Baseline: no feed shows the change (history, recorded as already
	// seen at the collection's first harvest, or none: a page a list
	// named): the page's text is read for the first time, to compare
	// later texts with. Set by PendingTexts.
	Baseline bool
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
SELECT q.collection_id, q.url, q.kind, q.datetime, NOT EXISTS (SELECT 1 FROM changes c
	WHERE c.collection_id = q.collection_id AND c.url = q.url AND c.kind = q.kind AND c.datetime = q.datetime AND c.run_id IS NOT NULL)
FROM snapshot_queue q
WHERE q.site_id = ? AND q.collection_id = ? ORDER BY q.datetime DESC, q.url LIMIT ?`, func(row scanner) (PendingText, error) {
		var p PendingText
		err := row.Scan(&p.CollectionID, &p.URL, &p.Kind, timeCol{&p.Datetime}, &p.Baseline)
		return p, err
	}, siteID, collectionID, max(limit, 0))
}

// saveSnapshotQueue applies q. Done goes first, so that a page both
// finished and queued again in one harvest stays queued.
func (d *DB) saveSnapshotQueue(ctx context.Context, tx *sql.Tx, siteID int64, q SnapshotQueue) error {
	// A chunk of pages a statement: a follow of a change list naming
	// 12,500 deletions finished as many pages, one round trip each on
	// PostgreSQL (0.74 s).
	for start := 0; start < len(q.Done); start += queueBatch {
		done := q.Done[start:min(start+queueBatch, len(q.Done))]
		args := make([]any, 0, len(done)+1)
		args = append(args, siteID)
		for _, u := range done {
			args = append(args, u)
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM snapshot_queue WHERE site_id = ? AND url IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(done)), ", ")+`)`, args...)
		if err != nil {
			return fmt.Errorf("finish the pending page %s…: %w", done[0], err)
		}
	}
	if err := queuePages(ctx, tx, siteID, q.Queue); err != nil {
		return err
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

// queueBatch is how many pages one statement of saveSnapshotQueue
// takes: at most 5 parameters each, far below SQLite's limit of 32,766.
const queueBatch = 500

// queuePages queues pages, a later entry of a page replacing an earlier
// one, as one row a statement did; a batch a statement, since a follow
// queues a thousand pages, a round trip each on PostgreSQL.
func queuePages(ctx context.Context, tx *sql.Tx, siteID int64, queue []PendingText) error {
	// One statement may not upsert a row twice: the last entry of a page
	// is the one that stands.
	last := make(map[string]int, len(queue))
	for i, p := range queue {
		last[p.URL] = i
	}
	pages := make([]PendingText, 0, len(last))
	for i, p := range queue {
		if last[p.URL] == i {
			pages = append(pages, p)
		}
	}
	for start := 0; start < len(pages); start += queueBatch {
		batch := pages[start:min(start+queueBatch, len(pages))]
		args := make([]any, 0, 5*len(batch))
		for _, p := range batch {
			args = append(args, siteID, p.URL, p.CollectionID, p.Kind, fmtTime(p.Datetime))
		}
		_, err := tx.ExecContext(ctx, `
INSERT INTO snapshot_queue (site_id, url, collection_id, kind, datetime) VALUES `+strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?), ", len(batch)), ", ")+`
ON CONFLICT (site_id, url) DO UPDATE SET
	collection_id = excluded.collection_id, kind = excluded.kind, datetime = excluded.datetime`, args...)
		if err != nil {
			return fmt.Errorf("queue the page %s…: %w", batch[0].URL, err)
		}
	}
	return nil
}
