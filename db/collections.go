package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Collection is one feed: for ResourceSync, a capability list, keyed by its
// rs:ln rel="describes" URL. Protocol names the source it is followed by,
// as the source registry (package source) knows it; the store treats it
// as an opaque name.
type Collection struct {
	ID              int64
	SiteID          int64
	SiteURL         string
	Protocol        string
	Key             string
	SourceURL       string // the capability list
	Title           string
	Active          bool // still listed by the site at the last discovery
	CreatedAt       time.Time
	LastProcessedAt *time.Time // newest change time processed (the watermark)
	LastSuccessAt   *time.Time // nil until one harvest completed without error
	LastHarvestAt   *time.Time
	LastError       string
	// Changes counts the changes in the collection's feed, one entry
	// each when it has one entry per change; History counts those stored
	// as already seen (older than the first harvest's window), which only
	// its "now following" entry lists.
	Changes  int
	History  int
	State    string // the protocol's own state, opaque here
	Watched  int    // pages watched, for a source that watches pages
	PublicID string // names it in the web UI's public addresses; random
	// HandedOver: another source took the collection over and has not
	// harvested it yet (see CollectionSpec.Replaces).
	HandedOver bool
	// PrunedUntil is the newest change time the retention sweep deleted
	// (PruneHistory): the feeds keep nothing older. Nil when none was.
	PrunedUntil *time.Time
}

// CollectionSpec is what discovery learns about a collection.
type CollectionSpec struct {
	Protocol  string
	Key       string
	SourceURL string
	Title     string
	// Replaces, when set, is the collection this one takes over: the
	// same part of the site, now followed by another source. Its row,
	// its feed and the changes in it stay; what its old source kept
	// (pages, state, processed documents, pages pending a read) goes.
	Replaces int64
}

const collectionCols = `c.id, c.site_id, s.url, c.protocol, c.key, c.source_url, c.title, c.active, c.created_at,
	c.last_processed_at, c.last_success_at, c.last_harvest_at, c.last_error,
	(SELECT COALESCE(sum(changes), 0) FROM runs WHERE collection_id = c.id),
	(SELECT count(*) FROM changes WHERE collection_id = c.id), c.state, COALESCE(c.public_id, ''),
	(SELECT count(*) FROM watched_pages WHERE collection_id = c.id), c.handed_over, c.pruned_until`

const collectionFrom = ` FROM collections c JOIN sites s ON s.id = c.site_id `

func scanCollection(row scanner) (Collection, error) {
	var c Collection
	var processed, success, harvest, pruned nullTime
	err := row.Scan(&c.ID, &c.SiteID, &c.SiteURL, &c.Protocol, &c.Key, &c.SourceURL, &c.Title, &c.Active,
		timeCol{&c.CreatedAt}, &processed, &success, &harvest, &c.LastError, &c.Changes, &c.History, &c.State, &c.PublicID, &c.Watched, &c.HandedOver, &pruned)
	c.History -= c.Changes
	c.LastProcessedAt, c.LastSuccessAt, c.LastHarvestAt = processed.t, success.t, harvest.t
	c.PrunedUntil = pruned.t
	return c, err
}

// SyncCollections makes the site's stored collections match what discovery
// found: new ones are added, known ones updated and reactivated, and those
// no longer listed are marked inactive (never deleted: their changes stay).
// It returns the active collections.
func (d *DB) SyncCollections(ctx context.Context, siteID int64, specs []CollectionSpec) ([]Collection, error) {
	now := fmtTime(time.Now())
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE collections SET active = FALSE WHERE site_id = ?`, siteID); err != nil {
			return err
		}
		for _, s := range specs {
			if s.Replaces != 0 {
				took, err := takeOver(ctx, tx, siteID, s)
				if err != nil {
					return err
				}
				if took {
					continue
				}
			}
			_, err := tx.ExecContext(ctx, `
INSERT INTO collections (site_id, protocol, key, source_url, title, created_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (site_id, protocol, key) DO UPDATE SET
	source_url = excluded.source_url,
	title = CASE WHEN excluded.title <> '' THEN excluded.title ELSE collections.title END,
	active = TRUE`,
				siteID, s.Protocol, s.Key, s.SourceURL, s.Title, now)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("db: store collections of site %d: %w", siteID, err)
	}
	return d.Collections(ctx, CollectionFilter{SiteID: siteID, ActiveOnly: true})
}

// CollectionFilter narrows Collections; zero values match everything.
type CollectionFilter struct {
	SiteID     int64
	ActiveOnly bool
}

// Collections lists collections, by site then id.
func (d *DB) Collections(ctx context.Context, f CollectionFilter) ([]Collection, error) {
	var where []string
	var args []any
	if f.SiteID != 0 {
		where = append(where, "c.site_id = ?")
		args = append(args, f.SiteID)
	}
	if f.ActiveOnly {
		where = append(where, "c.active")
	}
	q := `SELECT ` + collectionCols + collectionFrom
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return queryAll(ctx, d, "list collections", q+" ORDER BY c.site_id, c.id", scanCollection, args...)
}

// CollectionByID returns one collection or ErrNotFound.
func (d *DB) CollectionByID(ctx context.Context, id int64) (Collection, error) {
	return d.collectionWhere(ctx, "c.id = ?", id)
}

// CollectionByPublicID returns the collection whose public id is id, or
// ErrNotFound.
func (d *DB) CollectionByPublicID(ctx context.Context, id string) (Collection, error) {
	return d.collectionWhere(ctx, "c.public_id = ?", id)
}

func (d *DB) collectionWhere(ctx context.Context, where string, id any) (Collection, error) {
	c, err := scanCollection(d.r.QueryRowContext(ctx, `SELECT `+collectionCols+collectionFrom+` WHERE `+where, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Collection{}, ErrNotFound
	}
	if err != nil {
		return Collection{}, fmt.Errorf("db: load collection %v: %w", id, err)
	}
	return c, nil
}

// takeOver hands a collection to another source, unless a collection of
// that source and key exists already (then it is that one that goes on).
func takeOver(ctx context.Context, tx *sql.Tx, siteID int64, s CollectionSpec) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM collections WHERE site_id = ? AND protocol = ? AND key = ?`, siteID, s.Protocol, s.Key).Scan(&n)
	if err != nil || n > 0 {
		return false, err
	}
	res, err := tx.ExecContext(ctx, `
UPDATE collections SET protocol = ?, key = ?, source_url = ?,
	title = CASE WHEN ? <> '' THEN ? ELSE title END,
	state = '', last_processed_at = NULL, handed_over = TRUE, active = TRUE
WHERE id = ? AND site_id = ?`, s.Protocol, s.Key, s.SourceURL, s.Title, s.Title, s.Replaces, siteID)
	if err != nil {
		return false, err
	}
	if k, err := res.RowsAffected(); err != nil || k == 0 {
		return false, err
	}
	for _, table := range []string{"pages", "processed", "snapshot_queue", "watched_pages"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE collection_id = ?`, s.Replaces); err != nil {
			return false, fmt.Errorf("forget the %s of collection %d: %w", table, s.Replaces, err)
		}
	}
	return true, nil
}
