package db

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// Snapshot is the latest state of one page of a site as tidings read it,
// from a 200 answer: what a later change's text is compared with. Text is
// the readable text as the caller encodes it (compressed), nil when the
// page has none (an image); the store does not look inside.
type Snapshot struct {
	URL          string // as changes name the page
	FinalURL     string // after redirects
	ContentType  string
	Title        string
	Size         int64  // of the body as served
	ContentHash  string // hex, of the body as served, as long as the caller keeps it
	Text         []byte
	Method       string // how the text was read from the page, as the caller names it
	ETag         string
	LastModified string
	FetchedAt    time.Time
}

// maxSnapshotQuery bounds the URLs of one query: SQLite's default limit of
// host parameters is 32,766.
const maxSnapshotQuery = 500

// Snapshots returns the site's snapshots of the pages urls, by URL; pages
// never read are absent.
func (d *DB) Snapshots(ctx context.Context, siteID int64, urls []string) (map[string]Snapshot, error) {
	out := make(map[string]Snapshot, len(urls))
	for len(urls) > 0 {
		batch := urls[:min(len(urls), maxSnapshotQuery)]
		urls = urls[len(batch):]
		args := make([]any, 0, len(batch)+1)
		args = append(args, siteID)
		for _, u := range batch {
			args = append(args, u)
		}
		list, err := queryAll(ctx, d, fmt.Sprintf("load snapshots of site %d", siteID), `
SELECT url, final_url, content_type, title, size, content_hash, text, method, etag, last_modified, fetched_at
FROM snapshots WHERE site_id = ? AND url IN (?`+strings.Repeat(", ?", len(batch)-1)+`)`, scanSnapshot, args...)
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			out[s.URL] = s
		}
	}
	return out, nil
}

// The hash is stored as its bytes, and the final URL only when a redirect
// made it differ: a snapshot row is mostly its compressed text, and these
// were a tenth of the rest.
func scanSnapshot(row scanner) (Snapshot, error) {
	var s Snapshot
	var contentHash []byte
	err := row.Scan(&s.URL, &s.FinalURL, &s.ContentType, &s.Title, &s.Size, &contentHash,
		&s.Text, &s.Method, &s.ETag, &s.LastModified, timeCol{&s.FetchedAt})
	if s.FinalURL == "" {
		s.FinalURL = s.URL
	}
	s.ContentHash = hex.EncodeToString(contentHash)
	return s, err
}

// saveSnapshots replaces the site's snapshots of the pages in list.
func saveSnapshots(ctx context.Context, tx *sql.Tx, siteID int64, list []Snapshot) error {
	for _, s := range list {
		contentHash, err := hex.DecodeString(s.ContentHash)
		if err != nil {
			return fmt.Errorf("store the snapshot of %s: its hash is not hex", s.URL)
		}
		// A nil slice would be bound as NULL.
		contentHash = append([]byte{}, contentHash...)
		final := s.FinalURL
		if final == s.URL {
			final = ""
		}
		_, err = tx.ExecContext(ctx, `
INSERT INTO snapshots (site_id, url, final_url, content_type, title, size, content_hash, text, method, etag, last_modified, fetched_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (site_id, url) DO UPDATE SET
	final_url = excluded.final_url, content_type = excluded.content_type,
	title = excluded.title, size = excluded.size, content_hash = excluded.content_hash,
	text = excluded.text, method = excluded.method, etag = excluded.etag,
	last_modified = excluded.last_modified, fetched_at = excluded.fetched_at`,
			siteID, s.URL, final, s.ContentType, s.Title, s.Size, contentHash,
			s.Text, s.Method, s.ETag, s.LastModified, fmtTime(s.FetchedAt))
		if err != nil {
			return fmt.Errorf("store the snapshot of %s: %w", s.URL, err)
		}
	}
	return nil
}
