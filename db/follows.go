package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Follow records that a user follows a site. Following twice is
// ErrAlreadyExists.
func (d *DB) Follow(ctx context.Context, userID, siteID int64) error {
	_, err := d.w.ExecContext(ctx, `INSERT INTO follows (user_id, site_id, created_at) VALUES (?, ?, ?)`, userID, siteID, fmtTime(time.Now()))
	if isUnique(err) {
		return ErrAlreadyExists
	}
	if err != nil {
		return fmt.Errorf("db: follow site %d: %w", siteID, err)
	}
	return nil
}

// Unfollow removes a follow; ErrNotFound when the user did not follow the
// site. The site stays: others may follow it.
func (d *DB) Unfollow(ctx context.Context, userID, siteID int64) error {
	res, err := d.w.ExecContext(ctx, `DELETE FROM follows WHERE user_id = ? AND site_id = ?`, userID, siteID)
	if err != nil {
		return fmt.Errorf("db: unfollow site %d: %w", siteID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Follows reports whether the user follows the site.
func (d *DB) Follows(ctx context.Context, userID, siteID int64) (bool, error) {
	var n int
	err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM follows WHERE user_id = ? AND site_id = ?`, userID, siteID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("db: check follow: %w", err)
	}
	return n == 1, nil
}

// FollowTitles returns the names a user gave the sites they follow (from
// an imported OPML file), by site id; sites they gave none are left out.
func (d *DB) FollowTitles(ctx context.Context, userID int64) (map[int64]string, error) {
	rows, err := d.r.QueryContext(ctx, `SELECT site_id, title FROM follows WHERE user_id = ? AND title <> ''`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: load follow titles of user %d: %w", userID, err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var t string
		if err := rows.Scan(&id, &t); err != nil {
			return nil, fmt.Errorf("db: load follow titles of user %d: %w", userID, err)
		}
		out[id] = t
	}
	return out, rows.Err()
}

// FollowedSites lists the sites a user follows, by URL.
func (d *DB) FollowedSites(ctx context.Context, userID int64) ([]Site, error) {
	return d.sitesWhere(ctx, "id IN (SELECT site_id FROM follows WHERE user_id = ?)", userID)
}

// Followers counts the users following each site, by site id.
func (d *DB) Followers(ctx context.Context) (map[int64]int, error) {
	rows, err := d.r.QueryContext(ctx, `SELECT site_id, count(*) FROM follows GROUP BY site_id`)
	if err != nil {
		return nil, fmt.Errorf("db: count followers: %w", err)
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("db: count followers: %w", err)
		}
		out[id] = n
	}
	return out, rows.Err()
}

// Discovery statuses.
const (
	DiscoveryPending  = "pending"
	DiscoveryFollowed = "followed"
	DiscoveryAlready  = "already"
	DiscoveryFailed   = "failed"
)

// Discovery is a site a user asked to follow, discovered in the background.
type Discovery struct {
	ID         int64
	UserID     int64
	ImportID   int64
	InputURL   string
	Status     string
	SiteID     int64
	Message    string
	CreatedAt  time.Time
	FinishedAt *time.Time
	// Title is what the person's OPML file named the site; the follow
	// keeps it.
	Title string
}

// CreateDiscovery records a pending discovery.
func (d *DB) CreateDiscovery(ctx context.Context, userID, importID int64, inputURL string) (Discovery, error) {
	var imp any
	if importID != 0 {
		imp = importID
	}
	id, err := d.w.insert(ctx, `INSERT INTO discoveries (user_id, import_id, input_url, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
		userID, imp, inputURL, fmtTime(time.Now()))
	if err != nil {
		return Discovery{}, fmt.Errorf("db: create discovery: %w", err)
	}
	return d.DiscoveryByID(ctx, id)
}

// FinishDiscovery records a discovery's outcome and, for a site followed
// (or already followed), the user's follow, in one transaction.
func (d *DB) FinishDiscovery(ctx context.Context, id int64, status string, siteID int64, message string) error {
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var site any
		if siteID != 0 {
			site = siteID
		}
		_, err := tx.ExecContext(ctx, `UPDATE discoveries SET status = ?, site_id = ?, message = ?, finished_at = ? WHERE id = ?`,
			status, site, message, fmtTime(time.Now()), id)
		if err != nil || siteID == 0 || status == DiscoveryFailed {
			return err
		}
		// A name the person gave is kept; a later import names a site
		// only if nothing named it before.
		_, err = tx.ExecContext(ctx, `INSERT INTO follows (user_id, site_id, created_at, title)
SELECT user_id, ?, ?, title FROM discoveries WHERE id = ? ON CONFLICT (user_id, site_id) DO UPDATE SET
	title = CASE WHEN follows.title = '' THEN excluded.title ELSE follows.title END`, siteID, fmtTime(time.Now()), id)
		if err != nil {
			return err
		}
		return importedRules(ctx, tx, id, siteID)

	})
	if err != nil {
		return fmt.Errorf("db: finish discovery %d: %w", id, err)
	}
	return nil
}

const discoveryCols = `id, user_id, COALESCE(import_id, 0), input_url, status, COALESCE(site_id, 0), message, created_at, finished_at, title`

func scanDiscovery(row scanner) (Discovery, error) {
	var x Discovery
	var fin nullTime
	err := row.Scan(&x.ID, &x.UserID, &x.ImportID, &x.InputURL, &x.Status, &x.SiteID, &x.Message, timeCol{&x.CreatedAt}, &fin, &x.Title)
	x.FinishedAt = fin.t
	return x, err
}

// DiscoveryByID returns one discovery or ErrNotFound.
func (d *DB) DiscoveryByID(ctx context.Context, id int64) (Discovery, error) {
	x, err := scanDiscovery(d.r.QueryRowContext(ctx, `SELECT `+discoveryCols+` FROM discoveries WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Discovery{}, ErrNotFound
	}
	if err != nil {
		return Discovery{}, fmt.Errorf("db: load discovery %d: %w", id, err)
	}
	return x, nil
}

// Discoveries lists a user's discoveries (of one import, when importID is
// not 0), newest first, at most limit.
func (d *DB) Discoveries(ctx context.Context, userID, importID int64, limit int) ([]Discovery, error) {
	where := []string{"user_id = ?"}
	args := []any{userID}
	if importID != 0 {
		where = append(where, "import_id = ?")
		args = append(args, importID)
	}
	args = append(args, limit)
	return queryAll(ctx, d, "list discoveries",
		`SELECT `+discoveryCols+` FROM discoveries WHERE `+strings.Join(where, " AND ")+` ORDER BY id DESC LIMIT ?`, scanDiscovery, args...)
}

// OpenDiscoveries lists what the dashboard reports of a user's
// discoveries: those still pending and those that failed and were not
// dismissed, newest first, at most limit. An address tried several times
// is reported once, by its latest attempt, and not at all once that one
// succeeded.
func (d *DB) OpenDiscoveries(ctx context.Context, userID int64, limit int) ([]Discovery, error) {
	return queryAll(ctx, d, "list open discoveries", `SELECT `+discoveryCols+` FROM discoveries
WHERE id IN (SELECT max(id) FROM discoveries WHERE user_id = ? AND dismissed_at IS NULL GROUP BY input_url)
	AND status IN ('pending', 'failed')
ORDER BY id DESC LIMIT ?`, scanDiscovery, userID, limit)
}

// DismissDiscovery hides the failure of a user's discovery, and of every
// earlier failed attempt at the same address, from the dashboard. It
// returns ErrNotFound when the user has no such failed discovery.
func (d *DB) DismissDiscovery(ctx context.Context, userID, id int64) error {
	res, err := d.w.ExecContext(ctx, `UPDATE discoveries SET dismissed_at = ?
WHERE user_id = ? AND status = 'failed' AND dismissed_at IS NULL
	AND input_url = (SELECT input_url FROM discoveries WHERE id = ? AND user_id = ? AND status = 'failed')`,
		fmtTime(time.Now()), userID, id, userID)
	if err != nil {
		return fmt.Errorf("db: dismiss discovery %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("db: dismiss discovery %d: %w", id, err)
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}

// PendingDiscoveries lists every discovery still pending, oldest first, so
// that a restart can resume them.
func (d *DB) PendingDiscoveries(ctx context.Context) ([]Discovery, error) {
	return queryAll(ctx, d, "list pending discoveries",
		`SELECT `+discoveryCols+` FROM discoveries WHERE status = 'pending' ORDER BY id`, scanDiscovery)
}

// PendingCount counts a user's discoveries still pending.
func (d *DB) PendingCount(ctx context.Context, userID int64) (int, error) {
	var n int
	err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM discoveries WHERE user_id = ? AND status = 'pending'`, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("db: count pending discoveries: %w", err)
	}
	return n, nil
}

// Import is one uploaded OPML file.
type Import struct {
	ID        int64
	UserID    int64
	CreatedAt time.Time
	Skipped   []string // outlines that could not be followed, with reasons
}

// CreateImport records an OPML import with its pending discoveries in one
// transaction: a failure stores none of it.
func (d *DB) CreateImport(ctx context.Context, userID int64, urls []string, skipped []string) (Import, error) {
	sites := make([]ImportSite, len(urls))
	for i, u := range urls {
		sites[i].URL = u
	}
	return d.CreateImportTitled(ctx, userID, sites, skipped)
}

// ImportSite is one site an import asks to follow: the address, the
// name the person's reader gave it ("" when none), and the rules it
// gives the site, checked (kind IgnoreText or IgnoreCSS).
type ImportSite struct {
	URL   string
	Title string
	Rules []ImportRule
}

// ImportRule is a rule an import gives a site.
type ImportRule struct{ Kind, Pattern string }

// CreateImportTitled is CreateImport keeping the names the file gave
// the sites, which their follows keep.
func (d *DB) CreateImportTitled(ctx context.Context, userID int64, sites []ImportSite, skipped []string) (Import, error) {
	now := fmtTime(time.Now())
	var id int64
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO imports (user_id, created_at, skipped) VALUES (?, ?, ?) RETURNING id`,
			userID, now, strings.Join(skipped, "\n")).Scan(&id)
		if err != nil {
			return err
		}
		for _, s := range sites {
			var x int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO discoveries (user_id, import_id, input_url, created_at, title) VALUES (?, ?, ?, ?, ?) RETURNING id`,
				userID, id, s.URL, now, s.Title).Scan(&x); err != nil {
				return err
			}
			for i, r := range s.Rules {
				if _, err := tx.ExecContext(ctx, `INSERT INTO discovery_rules (discovery_id, position, kind, pattern) VALUES (?, ?, ?, ?)`,
					x, i, r.Kind, r.Pattern); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return Import{}, fmt.Errorf("db: create import: %w", err)
	}
	return d.ImportByID(ctx, id)
}

// ImportByID returns one import or ErrNotFound.
func (d *DB) ImportByID(ctx context.Context, id int64) (Import, error) {
	var im Import
	var skipped string
	err := d.r.QueryRowContext(ctx, `SELECT id, user_id, created_at, skipped FROM imports WHERE id = ?`, id).
		Scan(&im.ID, &im.UserID, timeCol{&im.CreatedAt}, &skipped)
	if errors.Is(err, sql.ErrNoRows) {
		return Import{}, ErrNotFound
	}
	if err != nil {
		return Import{}, fmt.Errorf("db: load import %d: %w", id, err)
	}
	if skipped != "" {
		im.Skipped = strings.Split(skipped, "\n")
	}
	return im, nil
}

// importedRules makes the rules an import gave a discovery the
// person's own rules of the site it followed, past those they have,
// up to MaxIgnoreRules of theirs.
func importedRules(ctx context.Context, tx *sql.Tx, discoveryID, siteID int64) error {
	var userID int64
	var have int
	if err := tx.QueryRowContext(ctx, `SELECT d.user_id, (SELECT count(*) FROM ignore_rules r
WHERE r.site_id = ? AND r.user_id = d.user_id AND r.kind <> ?) FROM discoveries d WHERE d.id = ?`, siteID, IgnoreLearned, discoveryID).Scan(&userID, &have); err != nil {
		return err
	}
	room := MaxIgnoreRules - have
	if room <= 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO ignore_rules (site_id, user_id, kind, pattern, created_at)
SELECT ?, ?, kind, pattern, ? FROM discovery_rules WHERE discovery_id = ? ORDER BY position LIMIT ?
ON CONFLICT DO NOTHING`, siteID, userID, fmtTime(time.Now()), discoveryID, room)
	return err
}
