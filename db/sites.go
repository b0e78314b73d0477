package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Site is a followed website, harvested once however many people follow it.
type Site struct {
	ID            int64
	URL           string // the site's root, e.g. https://example.org/
	InputURL      string // what was typed when it was first followed
	SourceURL     string // where its Source Description (or index) was found
	Title         string
	CreatedAt     time.Time
	LastHarvestAt *time.Time
	NextHarvestAt *time.Time
	LastError     string
	Failures      int        // harvests failed in a row
	FailingSince  *time.Time // when the current failing streak began
	DiscoveredAt  *time.Time // when every protocol last looked for its change information
	// UnfollowedAt is when its last follower left: it is no longer
	// harvested and its feeds have ended. Nil while someone follows it,
	// and for sites only the command line follows.
	UnfollowedAt *time.Time
	// HistoryDeletedAt is when its changes and harvest history were
	// deleted, a while after its last follower left.
	HistoryDeletedAt *time.Time
	// PublicID names the site in the web UI's public addresses: random,
	// so that they cannot be counted or guessed.
	PublicID string
}

const siteCols = `id, url, input_url, source_url, title, created_at, last_harvest_at, next_harvest_at, last_error, failures, failing_since, discovered_at, unfollowed_at, history_deleted_at, COALESCE(public_id, '')`

func scanSite(row scanner) (Site, error) {
	var s Site
	dest, finish := siteDest(&s)
	err := row.Scan(dest...)
	finish()
	return s, err
}

// siteDest returns the scan destinations of siteCols, and a function that
// finishes the site once scanned.
func siteDest(s *Site) ([]any, func()) {
	var last, next, since, disc, unfollowed, deleted nullTime
	dest := []any{&s.ID, &s.URL, &s.InputURL, &s.SourceURL, &s.Title, timeCol{&s.CreatedAt}, &last, &next, &s.LastError,
		&s.Failures, &since, &disc, &unfollowed, &deleted, &s.PublicID}
	return dest, func() {
		s.LastHarvestAt, s.NextHarvestAt, s.FailingSince, s.DiscoveredAt = last.t, next.t, since.t, disc.t
		s.UnfollowedAt, s.HistoryDeletedAt = unfollowed.t, deleted.t
	}
}

// CreateSite records a new site. It returns ErrAlreadyExists (and the
// existing site) when one with the same root URL is already stored.
func (d *DB) CreateSite(ctx context.Context, s Site) (Site, error) {
	now := time.Now()
	id, err := d.w.insert(ctx,
		`INSERT INTO sites (url, input_url, source_url, title, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		s.URL, s.InputURL, s.SourceURL, s.Title, fmtTime(now))
	if isUnique(err) {
		existing, gerr := d.SiteByURL(ctx, s.URL)
		if gerr != nil {
			return Site{}, gerr
		}
		return existing, ErrAlreadyExists
	}
	if err != nil {
		return Site{}, fmt.Errorf("db: create site %s: %w", s.URL, err)
	}
	return d.SiteByID(ctx, id)
}

// SiteByID returns one site or ErrNotFound.
func (d *DB) SiteByID(ctx context.Context, id int64) (Site, error) {
	return d.siteWhere(ctx, "id = ?", id)
}

// SiteByPublicID returns the site whose public id is id, or ErrNotFound.
func (d *DB) SiteByPublicID(ctx context.Context, id string) (Site, error) {
	return d.siteWhere(ctx, "public_id = ?", id)
}

// SiteByURL returns the site with the given root URL or ErrNotFound.
func (d *DB) SiteByURL(ctx context.Context, url string) (Site, error) {
	return d.siteWhere(ctx, "url = ?", url)
}

func (d *DB) siteWhere(ctx context.Context, where string, arg any) (Site, error) {
	s, err := scanSite(d.r.QueryRowContext(ctx, `SELECT `+siteCols+` FROM sites WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Site{}, ErrNotFound
	}
	if err != nil {
		return Site{}, fmt.Errorf("db: load site %v: %w", arg, err)
	}
	return s, nil
}

// Sites lists every site, oldest first.
func (d *DB) Sites(ctx context.Context) ([]Site, error) {
	return d.sitesWhere(ctx, "1 = 1")
}

// HarvestedSites lists every site still harvested: all but those whose
// last follower left.
func (d *DB) HarvestedSites(ctx context.Context) ([]Site, error) {
	return d.sitesWhere(ctx, "unfollowed_at IS NULL")
}

// DueSites lists the harvested sites whose next harvest is at or before
// now, or that were never harvested.
func (d *DB) DueSites(ctx context.Context, now time.Time) ([]Site, error) {
	return d.sitesWhere(ctx, "unfollowed_at IS NULL AND (next_harvest_at IS NULL OR next_harvest_at <= ?)", fmtTime(now))
}

func (d *DB) sitesWhere(ctx context.Context, where string, args ...any) ([]Site, error) {
	return queryAll(ctx, d, "list sites", `SELECT `+siteCols+` FROM sites WHERE `+where+` ORDER BY id`, scanSite, args...)
}

// UpdateSiteSource records where the site's Source Description was found and
// the site's title.
func (d *DB) UpdateSiteSource(ctx context.Context, id int64, sourceURL, title string) error {
	_, err := d.w.ExecContext(ctx, `UPDATE sites SET source_url = ?, title = ? WHERE id = ?`, sourceURL, title, id)
	if err != nil {
		return fmt.Errorf("db: update site %d: %w", id, err)
	}
	return nil
}

// SetDiscovered records when the site's change information was last
// looked for by every protocol.
func (d *DB) SetDiscovered(ctx context.Context, id int64, at time.Time) error {
	if _, err := d.w.ExecContext(ctx, `UPDATE sites SET discovered_at = ? WHERE id = ?`, fmtTime(at), id); err != nil {
		return fmt.Errorf("db: record discovery of site %d: %w", id, err)
	}
	return nil
}
