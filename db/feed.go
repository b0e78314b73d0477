package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Scope selects the changes of one collection, of one site, or of every
// site a user follows. Exactly one field is set.
type Scope struct {
	CollectionID int64
	SiteID       int64
	UserID       int64
}

func (s Scope) where(col string) (string, any) {
	switch {
	case s.CollectionID != 0:
		return col + ".collection_id = ?", s.CollectionID
	case s.UserID != 0:
		return col + ".collection_id IN (SELECT c.id FROM collections c JOIN follows f ON f.site_id = c.site_id WHERE f.user_id = ?)", s.UserID
	}
	return col + ".collection_id IN (SELECT id FROM collections WHERE site_id = ?)", s.SiteID
}

// shown is the condition that a change (alias col) is not one the
// scope's person's own rules hide; "1 = 1" for the other scopes, whose
// feeds are everyone's.
func (s Scope) shown(col string) (string, []any) {
	if s.UserID == 0 {
		return "1 = 1", nil
	}
	return "NOT EXISTS (SELECT 1 FROM hidden_changes hc WHERE hc.change_id = " + col + ".id AND hc.user_id = ?)", []any{s.UserID}
}

// Digest is one harvest run that put changes into a feed, with those
// changes: one digest entry of a feed.
type Digest struct {
	Run             Run
	CollectionTitle string
	CollectionKey   string
	// Changes are the run's changes, newest first (by datetime, then
	// URL), at most DigestChanges of them.
	Changes []Change
	// Omitted counts the run's changes left out of Changes. When some
	// are, Pages counts the distinct pages of all the run's changes, and
	// Kind is the kind they all share, or "" when kinds are mixed.
	Omitted int
	Pages   int
	Kind    string
	// Following: the run is the collection's first complete harvest
	// (Run.Following), and Changes are instead the collection's newest
	// changes known then, history included: at least FollowingChanges,
	// and every change the run put in the feed up to DigestChanges.
	// Run.Pages counts the collection's pages then.
	Following  bool
	lastChange int64
}

// FollowingChanges is how many of a collection's newest changes its "now
// following" entry lists, whatever their age.
const FollowingChanges = 10

// DigestChanges bounds the changes a Digest carries: a run of 50,000
// changes must not load 50,000 rows, nor make a feed entry of megabytes,
// each time its feed is read.
const DigestChanges = 200

// Before bounds a page of a feed, newest first: only rows dated before At,
// or dated At with an id below ID, come in. The zero Before bounds nothing.
type Before struct {
	At time.Time
	ID int64
}

// cond is the SQL condition of b over a time column and an id column.
func (b Before) cond(timeCol, idCol string) (string, []any) {
	if b.At.IsZero() {
		return "1 = 1", nil
	}
	at := fmtTime(b.At)
	return "(" + timeCol + " < ? OR (" + timeCol + " = ? AND " + idCol + " < ?))", []any{at, at, b.ID}
}

// Digests returns the newest runs in scope that found changes, newest
// first, each with its changes.
func (d *DB) Digests(ctx context.Context, scope Scope, limit int) ([]Digest, error) {
	return d.DigestsBefore(ctx, scope, Before{}, limit)
}

// DigestsBefore is Digests for the page of a feed that ends before b: the
// runs that put changes into the feed, and each collection's first
// complete harvest (its "now following" entry) whatever it found.
func (d *DB) DigestsBefore(ctx context.Context, scope Scope, b Before, limit int) ([]Digest, error) {
	// Apart, each condition has an index (runs_collection, runs_following).
	return d.digests(ctx, scope, b, limit, "r.changes > 0", d.eng.flag("r.following")+" AND +r.changes = 0")
}

// FollowingBefore returns the "now following" digests in scope, dated
// before b, newest first: what a feed of one entry per change shows of
// each collection's first harvest.
func (d *DB) FollowingBefore(ctx context.Context, scope Scope, b Before, limit int) ([]Digest, error) {
	return d.digests(ctx, scope, b, limit, d.eng.flag("r.following"))
}

// digests loads the newest runs in scope, before b, that meet any of
// which.
func (d *DB) digests(ctx context.Context, scope Scope, b Before, limit int, which ...string) ([]Digest, error) {
	where, arg := scope.where("r")
	page, pageArgs := b.cond("r.finished_at", "r.id")
	var parts []string
	var args []any
	// A run whose changes the person's own rules all hide is no entry of
	// theirs.
	someShown, shownArgs := "", []any(nil)
	if scope.UserID != 0 {
		shown, a := scope.shown("x")
		someShown, shownArgs = " AND (r.changes = 0 OR EXISTS (SELECT 1 FROM changes x WHERE x.run_id = r.id AND "+shown+"))", a
	}
	for _, w := range which {
		parts = append(parts, `
SELECT r.id AS run_id, r.site_id, r.collection_id, r.started_at, r.finished_at AS run_at, r.changes, r.following, r.pages, r.last_change_id, c.title, c.key
FROM runs r JOIN collections c ON c.id = r.collection_id
WHERE `+where+` AND `+w+` AND `+page+someShown)
		args = append(append(append(args, arg), pageArgs...), shownArgs...)
	}
	out, err := queryAll(ctx, d, "load digests", strings.Join(parts, "\nUNION ALL")+`
ORDER BY run_at DESC, run_id DESC LIMIT ?`, scanDigest, append(args, limit)...)
	if err != nil || len(out) == 0 {
		return out, err
	}
	var ids []any
	byRun := make(map[int64]*Digest, len(out))
	for i := range out {
		if out[i].Following {
			if err := d.followingChanges(ctx, &out[i]); err != nil {
				return nil, err
			}
			continue
		}
		ids = append(ids, out[i].Run.ID)
		byRun[out[i].Run.ID] = &out[i]
	}
	if len(ids) == 0 {
		return out, nil
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	// One more than DigestChanges per run tells which runs have more.
	shown, shownArgs := scope.shown("x")
	cs, err := d.changesWhere(ctx, `ch.id IN (SELECT id FROM (
	SELECT id, row_number() OVER (PARTITION BY run_id ORDER BY datetime DESC, url) AS n
	FROM changes x WHERE run_id IN (`+marks+`) AND `+shown+`) AS ranked WHERE n <= ?)
ORDER BY ch.datetime DESC, ch.url`, 0, append(append(ids, shownArgs...), DigestChanges+1)...)
	if err != nil {
		return nil, err
	}
	var over []any
	for _, c := range cs {
		g := byRun[c.RunID]
		if len(g.Changes) == DigestChanges {
			over = append(over, c.RunID)
			continue
		}
		g.Changes = append(g.Changes, c)
	}
	if len(over) > 0 {
		if err := d.digestTotals(ctx, scope, byRun, over); err != nil {
			return nil, err
		}
	}
	if scope.UserID != 0 {
		// What the run found, less what the person's rules hide.
		for i := range out {
			if !out[i].Following {
				out[i].Run.Changes = len(out[i].Changes) + out[i].Omitted
			}
		}
	}
	return out, nil
}

// digestTotals fills in what the changes left out of the digests of the
// runs over would have said.
func (d *DB) digestTotals(ctx context.Context, scope Scope, byRun map[int64]*Digest, over []any) error {
	marks := strings.TrimSuffix(strings.Repeat("?,", len(over)), ",")
	shown, shownArgs := scope.shown("x")
	type totals struct {
		run, changes, pages, kinds int64
		kind                       string
	}
	rows, err := queryAll(ctx, d, "count digest changes", `
SELECT run_id, count(*), count(DISTINCT url), count(DISTINCT kind), min(kind)
FROM changes x WHERE run_id IN (`+marks+`) AND `+shown+` GROUP BY run_id`, func(row scanner) (totals, error) {
		var t totals
		err := row.Scan(&t.run, &t.changes, &t.pages, &t.kinds, &t.kind)
		return t, err
	}, append(over, shownArgs...)...)
	if err != nil {
		return err
	}
	for _, t := range rows {
		g := byRun[t.run]
		g.Omitted = int(t.changes) - len(g.Changes)
		g.Pages = int(t.pages)
		if t.kinds == 1 {
			g.Kind = t.kind
		}
	}
	return nil
}

// followingChanges loads the changes a "now following" digest lists: the
// latest change of each of the collection's most recently changed pages
// as of its first harvest, history included.
func (d *DB) followingChanges(ctx context.Context, g *Digest) error {
	n := max(FollowingChanges, min(g.Run.Changes, DigestChanges))
	// Grouped by URL, the changes are read in the order of their unique
	// index, and only the n newest are kept while sorting: a collection
	// of many long URLs is never sorted whole. The id is the one of the
	// row max() picked (SQLite's bare column; DISTINCT ON in PostgreSQL).
	cs, err := d.changesWhere(ctx, d.eng.pick(`ch.id IN (SELECT id FROM (
	SELECT id, url, max(datetime) AS latest FROM changes WHERE collection_id = ? AND id <= ? GROUP BY url)
	ORDER BY latest DESC, url LIMIT ?)
ORDER BY ch.datetime DESC, ch.url`, `ch.id IN (SELECT id FROM (
	SELECT DISTINCT ON (url) id, url, datetime AS latest FROM changes WHERE collection_id = ? AND id <= ?
	ORDER BY url, datetime DESC) AS latest
	ORDER BY latest DESC, url LIMIT ?)
ORDER BY ch.datetime DESC, ch.url`), 0, g.Run.CollectionID, g.lastChange, n)
	if err != nil {
		return err
	}
	g.Changes = cs
	g.Omitted = max(0, g.Run.Changes-DigestChanges)
	return nil
}

func scanDigest(row scanner) (Digest, error) {
	var g Digest
	r := &g.Run
	err := row.Scan(&r.ID, &r.SiteID, &r.CollectionID, timeCol{&r.StartedAt}, timeCol{&r.FinishedAt}, &r.Changes,
		&r.Following, &r.Pages, &g.lastChange, &g.CollectionTitle, &g.CollectionKey)
	g.Following = r.Following
	return g, err
}

// FeedChanges returns the newest changes in scope that are in the feed
// (history stored as already seen is left out), newest first.
func (d *DB) FeedChanges(ctx context.Context, scope Scope, limit int) ([]Change, error) {
	return d.FeedChangesBefore(ctx, scope, Before{}, limit)
}

// FeedChangesBefore is FeedChanges for the page of a feed that ends before
// b, by change datetime.
func (d *DB) FeedChangesBefore(ctx context.Context, scope Scope, b Before, limit int) ([]Change, error) {
	where, arg := scope.where("ch")
	page, args := b.cond("ch.datetime", "ch.id")
	shown, shownArgs := scope.shown("ch")
	return d.changesWhere(ctx, where+" AND ch.run_id IS NOT NULL AND "+page+" AND "+shown+" ORDER BY ch.datetime DESC, ch.id DESC LIMIT ?",
		limit, append(append([]any{arg}, args...), shownArgs...)...)
}

// FeedStamp tells whether what the feeds of a scope show may have changed.
type FeedStamp struct {
	// Version changes whenever a harvest of a site in scope is stored, and
	// when a user's follows change; what it says is opaque.
	Version string
	// NextHarvest is the soonest next harvest of a site in scope; nil when
	// none is scheduled.
	NextHarvest *time.Time
	// LastAdded is when the newest harvest that put changes into the
	// scope's feeds finished; nil before any did.
	LastAdded *time.Time
}

// Stamp returns the scope's FeedStamp in one small query, so that an
// unchanged feed can be answered without loading it.
func (d *DB) Stamp(ctx context.Context, scope Scope) (FeedStamp, error) {
	sites, arg := "SELECT site_id FROM collections WHERE id = ?", scope.CollectionID
	switch {
	case scope.UserID != 0:
		sites, arg = "SELECT site_id FROM follows WHERE user_id = ?", scope.UserID
	case scope.SiteID != 0:
		sites, arg = "SELECT CAST(? AS BIGINT)", scope.SiteID
	}
	where, warg := scope.where("r")
	var maxRun sql.NullInt64
	var list sql.NullString
	var pruned timeText
	var next, added nullTime
	// The retention sweep deletes without harvesting: how far it went
	// is part of the version.
	err := d.r.QueryRowContext(ctx, `
SELECT (SELECT max(id) FROM runs WHERE site_id IN (`+sites+`)),
	`+d.eng.pick(`(SELECT group_concat(id) FROM (SELECT id FROM sites WHERE id IN (`+sites+`) ORDER BY id))`,
		`(SELECT string_agg(CAST(id AS TEXT), ',' ORDER BY id) FROM sites WHERE id IN (`+sites+`))`)+`,
	(SELECT min(next_harvest_at) FROM sites WHERE id IN (`+sites+`)),
	(SELECT max(t) FROM (SELECT max(r.finished_at) AS t FROM runs r WHERE `+where+` AND r.changes > 0
		UNION ALL SELECT max(r.finished_at) FROM runs r WHERE `+where+` AND `+d.eng.flag("r.following")+`) AS added),
	(SELECT max(pruned_until) FROM collections WHERE site_id IN (`+sites+`))`,
		arg, arg, arg, warg, warg, arg).Scan(&maxRun, &list, &next, &added, &pruned)
	if err != nil {
		return FeedStamp{}, fmt.Errorf("db: load feed stamp: %w", err)
	}
	return FeedStamp{
		Version:     fmt.Sprintf("%d/%s/%s", maxRun.Int64, list.String, pruned.String),
		NextHarvest: next.t,
		LastAdded:   added.t,
	}, nil
}

// FollowerFeedTokens returns the feed tokens of the users who follow a
// site: the addresses of their aggregate feeds.
func (d *DB) FollowerFeedTokens(ctx context.Context, siteID int64) ([]string, error) {
	return queryAll(ctx, d, fmt.Sprintf("load followers of site %d", siteID), `
SELECT u.feed_token FROM users u JOIN follows f ON f.user_id = u.id WHERE f.site_id = ? ORDER BY u.id`,
		func(row scanner) (string, error) {
			var s string
			err := row.Scan(&s)
			return s, err
		}, siteID)
}

const changeCols = `ch.id, ch.collection_id, ch.url, ch.kind, ch.datetime, ch.run_id, ch.source, ch.title, ch.summary,
	ch.author, ch.language, ch.tags, ch.from_lastmod, ch.text_change, ch.diff`

// changeDest returns the scan destinations of changeCols, and a function
// that finishes the change once scanned.
func changeDest(c *Change) ([]any, func()) {
	var run sql.NullInt64
	var tags string
	dest := []any{&c.ID, &c.CollectionID, &c.URL, &c.Kind, timeCol{&c.Datetime}, &run, &c.Source, &c.Title, &c.Summary,
		&c.Author, &c.Language, &tags, &c.FromLastmod, &c.TextChange, &c.Diff}
	return dest, func() {
		c.RunID, c.History = run.Int64, !run.Valid
		// A diff that cannot be read is as none: its change shows
		// without it, the rest of a feed or page as ever.
		if d, err := readDiff(c.Diff); err == nil {
			c.Diff = d
		} else {
			c.Diff = ""
		}
		if tags != "" {
			c.Tags = strings.Split(tags, "\n")
		}
	}
}

func scanChange(row scanner) (Change, error) {
	var c Change
	dest, finish := changeDest(&c)
	err := row.Scan(dest...)
	finish()
	return c, err
}

// changesWhere runs a query over changes; limit is appended as the last
// argument when positive.
func (d *DB) changesWhere(ctx context.Context, tail string, limit int, args ...any) ([]Change, error) {
	if limit > 0 {
		args = append(args, limit)
	}
	return queryAll(ctx, d, "load changes", `SELECT `+changeCols+` FROM changes ch WHERE `+tail, scanChange, args...)
}

// ChangeOf returns change id of a collection; ErrNotFound when the
// collection holds no change of that id (never one of another's).
func (d *DB) ChangeOf(ctx context.Context, collectionID, id int64) (Change, error) {
	list, err := d.changesWhere(ctx, "ch.id = ? AND ch.collection_id = ?", 0, id, collectionID)
	if err != nil {
		return Change{}, err
	}
	if len(list) == 0 {
		return Change{}, ErrNotFound
	}
	return list[0], nil
}

// ChangesAt returns the changes of a collection dated exactly at: those a
// harvest reading again from its last processing time finds stored.
func (d *DB) ChangesAt(ctx context.Context, collectionID int64, at time.Time) ([]Change, error) {
	return d.changesWhere(ctx, "ch.collection_id = ? AND ch.datetime = ?", 0, collectionID, fmtTime(at))
}

// StoredChanges reports, for each of changes, whether the collection
// stores it (the same page, kind and time), looking the pages up a chunk
// at a time: a change list that gained a thousand entries dated before
// its last harvest cost a thousand queries, a round trip each on
// PostgreSQL.
func (d *DB) StoredChanges(ctx context.Context, collectionID int64, changes []Change) ([]bool, error) {
	type key struct{ url, kind, at string }
	urls := make([]string, 0, len(changes))
	seen := map[string]bool{}
	for _, c := range changes {
		if !seen[c.URL] {
			seen[c.URL] = true
			urls = append(urls, c.URL)
		}
	}
	stored := map[key]bool{}
	err := d.pageChanges(ctx, collectionID, urls, func(u, kind string, at time.Time, _ int64) {
		stored[key{u, kind, fmtTime(at)}] = true
	})
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(changes))
	for i, c := range changes {
		out[i] = stored[key{c.URL, c.Kind, fmtTime(c.Datetime)}]
	}
	return out, nil
}

// LastKinds returns the kind of the newest change the collection stores
// of each of the pages urls, by page; a page it stores none of is not in
// it. The pages are looked up a chunk at a time: one query a page cost a
// follow of a change list naming 12,500 deletions 0.08 s.
func (d *DB) LastKinds(ctx context.Context, collectionID int64, urls []string) (map[string]string, error) {
	type last struct {
		at   time.Time
		id   int64
		kind string
	}
	latest := map[string]last{}
	err := d.pageChanges(ctx, collectionID, urls, func(u, kind string, at time.Time, id int64) {
		if l, ok := latest[u]; !ok || at.After(l.at) || at.Equal(l.at) && id > l.id {
			latest[u] = last{at, id, kind}
		}
	})
	if err != nil {
		return nil, err
	}
	kinds := make(map[string]string, len(latest))
	for u, l := range latest {
		kinds[u] = l.kind
	}
	return kinds, nil
}

// pageChanges hands each stored change of the collection's pages urls to
// each, the pages a chunk at a time, in no order: asked to order one
// page's changes by date, SQLite's planner walked the collection's date
// index instead, reading every change of it (66 ms a harvest of a
// collection of 50,000).
func (d *DB) pageChanges(ctx context.Context, collectionID int64, urls []string, each func(url, kind string, at time.Time, id int64)) error {
	for start := 0; start < len(urls); start += withdrawChunk {
		match, args := withdrawMatch(collectionID, urls[start:min(start+withdrawChunk, len(urls))])
		rows, err := d.r.QueryContext(ctx, `SELECT url, kind, datetime, id FROM changes WHERE `+match, args...)
		if err != nil {
			return fmt.Errorf("db: look up the changes of %d pages of collection %d: %w", len(urls), collectionID, err)
		}
		for rows.Next() {
			var u, kind string
			var at nullTime
			var id int64
			if err := rows.Scan(&u, &kind, &at, &id); err != nil {
				rows.Close()
				return err
			}
			if at.t != nil {
				each(u, kind, *at.t, id)
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("db: look up the changes of %d pages of collection %d: %w", len(urls), collectionID, err)
		}
	}
	return nil
}

// ExportedChange is one change with the names of where it belongs.
type ExportedChange struct {
	Change
	SiteURL       string
	CollectionKey string
}

// ExportFilter narrows ExportChanges; zero values match everything.
type ExportFilter struct {
	SiteURL      string
	CollectionID int64
}

// ExportChanges calls fn for every stored change matching f, oldest first,
// history included. Rows stream, so the export costs no memory per change.
func (d *DB) ExportChanges(ctx context.Context, f ExportFilter, fn func(ExportedChange) error) error {
	var where []string
	var args []any
	if f.SiteURL != "" {
		where = append(where, "s.url = ?")
		args = append(args, f.SiteURL)
	}
	if f.CollectionID != 0 {
		where = append(where, "c.id = ?")
		args = append(args, f.CollectionID)
	}
	q := `SELECT ` + changeCols + `, s.url, c.key FROM changes ch
JOIN collections c ON c.id = ch.collection_id JOIN sites s ON s.id = c.site_id`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := d.r.QueryContext(ctx, q+" ORDER BY ch.datetime, ch.id", args...)
	if err != nil {
		return fmt.Errorf("db: export changes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e ExportedChange
		dest, finish := changeDest(&e.Change)
		if err := rows.Scan(append(dest, &e.SiteURL, &e.CollectionKey)...); err != nil {
			return fmt.Errorf("db: export changes: %w", err)
		}
		finish()
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Runs returns the newest runs of a site (site-level and per collection),
// newest first.
func (d *DB) Runs(ctx context.Context, siteID int64, limit int) ([]Run, error) {
	return queryAll(ctx, d, fmt.Sprintf("load runs of site %d", siteID), `
SELECT id, site_id, COALESCE(collection_id, 0), started_at, finished_at, documents, not_modified, changes, backfilled, lastmod_only, warnings, error,
	following, pages
FROM runs WHERE site_id = ? ORDER BY finished_at DESC, id DESC LIMIT ?`, scanRun, siteID, limit)
}

func scanRun(row scanner) (Run, error) {
	var r Run
	var warnings string
	err := row.Scan(&r.ID, &r.SiteID, &r.CollectionID, timeCol{&r.StartedAt}, timeCol{&r.FinishedAt}, &r.Documents, &r.NotModified,
		&r.Changes, &r.Backfilled, &r.LastmodOnly, &warnings, &r.Error, &r.Following, &r.Pages)
	if warnings != "" {
		r.Warnings = strings.Split(warnings, "\n")
	}
	return r, err
}
