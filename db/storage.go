package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// siteBytes is what a site's rows take, in bytes: the lengths of their
// columns, read without loading them (octet_length), and a fixed
// overhead a row for its integers, times and record header, with the URL
// of each change twice for its unique index. It is the site's share of
// the database file, less the free pages and the indexes' other columns.
const siteBytes = `
SELECT COALESCE((SELECT sum(` + changeBytes + `)
	FROM changes WHERE collection_id IN (SELECT id FROM collections WHERE site_id = ?1)), 0)
+ COALESCE((SELECT sum(octet_length(url) + octet_length(final_url) + octet_length(content_type) + octet_length(title)
		+ octet_length(content_hash) + COALESCE(octet_length(text), 0) + octet_length(method) + octet_length(etag)
		+ octet_length(last_modified) + 50)
	FROM snapshots WHERE site_id = ?1), 0)
+ COALESCE((SELECT sum(octet_length(url) + octet_length(hash) + octet_length(title) + octet_length(summary) + 60)
	FROM pages WHERE collection_id IN (SELECT id FROM collections WHERE site_id = ?1)), 0)
+ COALESCE((SELECT sum(octet_length(url) + 50)
	FROM watched_pages WHERE collection_id IN (SELECT id FROM collections WHERE site_id = ?1)), 0)
+ COALESCE((SELECT sum(octet_length(url) + 40)
	FROM processed WHERE collection_id IN (SELECT id FROM collections WHERE site_id = ?1)), 0)
+ COALESCE((SELECT sum(octet_length(url) + 80) FROM snapshot_queue WHERE site_id = ?1), 0)
+ COALESCE((SELECT sum(octet_length(warnings) + octet_length(error) + 110) FROM runs WHERE site_id = ?1), 0)
+ COALESCE((SELECT sum(octet_length(url) + octet_length(etag) + octet_length(last_modified) + octet_length(memo)
		+ octet_length(digest) + 40)
	FROM fetch_state WHERE site_id = ?1), 0)`

// changeBytes is what one change row takes, as siteBytes counts it; the
// share's pruning (PruneToShare) counts with it too.
const changeBytes = `2 * octet_length(url) + octet_length(source) + octet_length(title) + octet_length(summary)
		+ octet_length(author) + octet_length(language) + octet_length(tags) + octet_length(diff) + 90`

// MeasureSites measures what each site harvested or pruned since it was
// last measured stores (StoredBytes), at now, and returns how many it
// measured. Each is measured in a transaction of the writer, so that no
// harvest stores between the measure and its record.
func (d *DB) MeasureSites(ctx context.Context, now time.Time) (int, error) {
	ids, err := queryAll(ctx, d, "list sites to measure",
		`SELECT id FROM sites WHERE measured_at IS NULL AND history_deleted_at IS NULL ORDER BY id`, scanID)
	if err != nil {
		return 0, err
	}
	for k, id := range ids {
		if err := d.measureSite(ctx, id, now); err != nil {
			return k, err
		}
	}
	return len(ids), nil
}

// measureSite measures what one site stores, at now.
func (d *DB) measureSite(ctx context.Context, id int64, now time.Time) error {
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var n int64
		if err := tx.QueryRowContext(ctx, siteBytes, id).Scan(&n); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sites SET stored_bytes = ?, measured_at = ? WHERE id = ?`, n, fmtTime(now), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("db: measure site %d: %w", id, err)
	}
	return nil
}

// SiteStorage is what one site stores, as the sweep last measured it.
type SiteStorage struct {
	Site  Site
	Bytes int64
	// MeasuredAt is when; nil when the site has changed since.
	MeasuredAt *time.Time
	// Followers are the names of the people who follow it.
	Followers []string
}

// SitesByStorage lists every site with what it stores, the most first.
func (d *DB) SitesByStorage(ctx context.Context) ([]SiteStorage, error) {
	return queryAll(ctx, d, "list sites by storage", `
SELECT `+siteCols+`, stored_bytes, measured_at,
	`+d.eng.pick(`(SELECT group_concat(name, char(10)) FROM (SELECT u.name FROM follows f JOIN users u ON u.id = f.user_id
		WHERE f.site_id = sites.id ORDER BY u.name))`, `(SELECT string_agg(u.name, chr(10) ORDER BY lower(u.name)) FROM follows f JOIN users u ON u.id = f.user_id
		WHERE f.site_id = sites.id)`)+`
FROM sites ORDER BY stored_bytes DESC, id`, func(row scanner) (SiteStorage, error) {
		var s SiteStorage
		var measured nullTime
		var names sql.NullString
		dest, finish := siteDest(&s.Site)
		err := row.Scan(append(dest, &s.Bytes, &measured, &names)...)
		finish()
		s.MeasuredAt = measured.t
		if names.String != "" {
			s.Followers = strings.Split(names.String, "\n")
		}
		return s, err
	})
}

// Usage is what one person's follows hold: how many sites, and their
// share of what those sites store, a site followed by n people counting
// an nth to each.
type Usage struct {
	Sites int
	Bytes int64
	// Waiting counts the person's discoveries still pending (UsageOf
	// only): sites they will follow once discovered.
	Waiting int
}

const usageSelect = `
SELECT max(f.user_id), count(*), COALESCE(sum(s.stored_bytes / (SELECT count(*) FROM follows WHERE site_id = f.site_id)), 0)
FROM follows f JOIN sites s ON s.id = f.site_id`

// UsageOf returns what a person's follows hold, and their discoveries
// waiting, read together: a discovery that ends meanwhile is counted
// once, waiting or followed.
func (d *DB) UsageOf(ctx context.Context, userID int64) (Usage, error) {
	var u Usage
	var id sql.NullInt64
	err := d.r.QueryRowContext(ctx, `SELECT u.*, (SELECT count(*) FROM discoveries WHERE user_id = ?1 AND status = 'pending')
FROM (`+usageSelect+` WHERE f.user_id = ?1) u`, userID).Scan(&id, &u.Sites, &u.Bytes, &u.Waiting)
	if err != nil {
		return Usage{}, fmt.Errorf("db: usage of user %d: %w", userID, err)
	}
	return u, nil
}

// Usages returns what each person's follows hold, by user id; people who
// follow nothing are left out.
func (d *DB) Usages(ctx context.Context) (map[int64]Usage, error) {
	type row struct {
		id int64
		u  Usage
	}
	list, err := queryAll(ctx, d, "load usage", usageSelect+` GROUP BY f.user_id`, func(r scanner) (row, error) {
		var x row
		return x, r.Scan(&x.id, &x.u.Sites, &x.u.Bytes)
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]Usage, len(list))
	for _, x := range list {
		out[x.id] = x.u
	}
	return out, nil
}

// FileSize returns the size of the database file in bytes, free pages
// included (the write-ahead log is not); on PostgreSQL, the database's.
func (d *DB) FileSize(ctx context.Context) (int64, error) {
	var n int64
	q := d.eng.pick(`SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`, `SELECT pg_database_size(current_database())`)
	if err := d.r.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return 0, fmt.Errorf("db: file size: %w", err)
	}
	return n, nil
}
