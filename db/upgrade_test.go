package db

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// lastTextSchema is the last step whose PostgreSQL schema held times as
// text and flags as integers, as SQLite does.
const lastTextSchema = 26

// TestUpgradeFromTextTimesKeepsEverything: a database at step 26, its
// times written as that schema wrote them (text, to the nanosecond on
// SQLite's side) and its flags as 0 and 1, is opened by this tidings on
// either engine: every time reads back to the microsecond, every flag as
// it was, the "now following" run still found by its index's condition,
// and the database takes new writes in its new types.
func TestUpgradeFromTextTimesKeepsEverything(t *testing.T) {
	ctx := context.Background()
	target := newTarget(t)
	old, err := openAt(ctx, target, lastTextSchema)
	if err != nil {
		t.Fatal(err)
	}
	if v := schemaVersion(t, old); v != lastTextSchema {
		t.Fatalf("the old database is at step %d; want %d", v, lastTextSchema)
	}
	for _, q := range []string{
		`INSERT INTO sites (id, url, input_url, created_at, last_harvest_at, next_harvest_at, discovered_at)
			VALUES (7, 'https://old.example/', 'old.example', '2025-03-01T10:00:00.000000000Z', '2026-11-01T08:00:00.250000000Z',
			'2026-11-02T08:00:00.000000000Z', NULL)`,
		`INSERT INTO collections (id, site_id, protocol, key, source_url, active, handed_over, created_at, last_success_at, pruned_until)
			VALUES (11, 7, 'resourcesync', 'cl', 'https://old.example/cl.xml', 1, 0, '2025-03-01T10:00:00.000000000Z',
			'2026-11-01T08:00:00.250000000Z', '2025-01-01T00:00:00.000001000Z')`,
		`INSERT INTO collections (id, site_id, protocol, key, source_url, active, handed_over, created_at)
			VALUES (12, 7, 'sitemap', 'sm', 'https://old.example/sitemap.xml', 0, 1, '2025-03-01T10:00:00.000000000Z')`,
		`INSERT INTO runs (id, site_id, collection_id, started_at, finished_at, changes, following, pages, last_change_id)
			VALUES (21, 7, 11, '2026-11-01T07:59:59.000000000Z', '2026-11-01T08:00:00.250000000Z', 1, 1, 2, 32)`,
		`INSERT INTO changes (id, collection_id, url, kind, datetime, run_id, from_lastmod)
			VALUES (31, 11, 'https://old.example/a', 'created', '2013-01-02T13:00:02.123456000Z', 21, 1)`,
		`INSERT INTO changes (id, collection_id, url, kind, datetime, run_id, from_lastmod)
			VALUES (32, 11, 'https://old.example/b', 'updated', '2026-10-31T23:59:59.999999000Z', 21, 0)`,
		`INSERT INTO users (id, name, password_hash, is_admin, feed_token, created_at)
			VALUES (41, 'Ann', 'x', 1, 'token-ann', '2025-03-01T10:00:00.000000000Z')`,
		`INSERT INTO users (id, name, password_hash, is_admin, feed_token, created_at)
			VALUES (42, 'Bob', 'x', 0, 'token-bob', '2025-03-02T10:00:00.000000000Z')`,
		`INSERT INTO follows (user_id, site_id, created_at) VALUES (41, 7, '2025-03-01T10:00:00.000000000Z')`,
		`INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
			VALUES ('session-ann', 41, '2026-11-01T00:00:00.000000000Z', '2099-01-01T00:00:00.500000000Z')`,
		`INSERT INTO watched_pages (collection_id, url, depth, checked_at, by_hand)
			VALUES (12, 'https://old.example/by-hand', 0, '2026-11-01T08:00:00.000007000Z', 1)`,
		`INSERT INTO watched_pages (collection_id, url, depth, checked_at, by_hand)
			VALUES (12, 'https://old.example/linked', 1, '2026-11-01T08:00:00.000008000Z', 0)`,
		`INSERT INTO pages (collection_id, url, modified, hash) VALUES (11, 'https://old.example/a', '2013-01-02T13:00:02.123456000Z', 'h')`,
		`INSERT INTO outbox (id, user_id, kind, address, message, created_at, next_at, claimed_until)
			VALUES (51, 41, 'email', 'ann@old.example', 'm', '2026-11-01T08:00:00.000000000Z', '2026-11-01T08:00:00.000000000Z', NULL)`,
	} {
		if _, err := old.w.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.Close()

	d, err := Open(ctx, target)
	if err != nil {
		t.Fatalf("upgrade from step %d: %v", lastTextSchema, err)
	}
	defer d.Close()
	if v := schemaVersion(t, d); v != SchemaVersion {
		t.Fatalf("schema version after the upgrade = %d; want %d", v, SchemaVersion)
	}

	var got []string
	err = d.ExportChanges(ctx, ExportFilter{}, func(c ExportedChange) error {
		got = append(got, c.URL+" "+c.Datetime.Format(time.RFC3339Nano)+" "+map[bool]string{true: "lastmod", false: "dated"}[c.FromLastmod])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://old.example/a 2013-01-02T13:00:02.123456Z lastmod", "https://old.example/b 2026-10-31T23:59:59.999999Z dated"}
	if !slices.Equal(got, want) {
		t.Errorf("exported after the upgrade:\n%q\nwant\n%q", got, want)
	}

	site, err := d.SiteByURL(ctx, "https://old.example/")
	if err != nil {
		t.Fatal(err)
	}
	if !site.CreatedAt.Equal(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)) || site.LastHarvestAt == nil ||
		!site.LastHarvestAt.Equal(time.Date(2026, 11, 1, 8, 0, 0, 250e6, time.UTC)) || site.DiscoveredAt != nil {
		t.Errorf("site after the upgrade: created %v, harvested %v, discovered %v", site.CreatedAt, site.LastHarvestAt, site.DiscoveredAt)
	}
	cols, err := d.Collections(ctx, CollectionFilter{SiteID: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 2 || !cols[0].Active || cols[0].HandedOver || cols[1].Active || !cols[1].HandedOver ||
		cols[0].PrunedUntil == nil || !cols[0].PrunedUntil.Equal(time.Date(2025, 1, 1, 0, 0, 0, 1000, time.UTC)) {
		t.Errorf("collections after the upgrade: %+v", cols)
	}
	active, err := d.Collections(ctx, CollectionFilter{SiteID: 7, ActiveOnly: true})
	if err != nil || len(active) != 1 || active[0].ID != 11 {
		t.Fatalf("active collections after the upgrade: %+v, %v; want collection 11 alone", active, err)
	}
	following, err := d.FollowingBefore(ctx, Scope{SiteID: 7}, Before{}, 10)
	if err != nil || len(following) != 1 || following[0].Run.ID != 21 || !following[0].Run.Following {
		t.Errorf("the \"now following\" run after the upgrade: %+v, %v; want run 21", following, err)
	}
	// What the feeds list, to the microsecond.
	var listed []string
	for _, d := range following {
		for _, c := range d.Changes {
			listed = append(listed, c.Datetime.Format(time.RFC3339Nano))
		}
	}
	if want := []string{"2026-10-31T23:59:59.999999Z", "2013-01-02T13:00:02.123456Z"}; !slices.Equal(listed, want) {
		t.Errorf("the feed's \"now following\" entry lists changes at %q; want %q", listed, want)
	}
	watched, err := d.WatchedPages(ctx, 12)
	if err != nil {
		t.Fatal(err)
	}
	byHand := map[string]bool{}
	for _, w := range watched {
		byHand[w.URL] = w.ByHand
	}
	if len(watched) != 2 || !byHand["https://old.example/by-hand"] || byHand["https://old.example/linked"] ||
		!watched[0].CheckedAt.Equal(time.Date(2026, 11, 1, 8, 0, 0, 7000, time.UTC)) {
		t.Errorf("watched pages after the upgrade: %+v", watched)
	}
	ann, err := d.UserByName(ctx, "ann")
	if err != nil || !ann.Admin {
		t.Errorf("Ann after the upgrade: %+v, %v; want the admin", ann, err)
	}
	bob, err := d.UserByName(ctx, "Bob")
	if err != nil || bob.Admin {
		t.Errorf("Bob after the upgrade: %+v, %v; want no admin", bob, err)
	}
	if u, err := d.SessionUser(ctx, "session-ann", time.Date(2098, 12, 31, 0, 0, 0, 0, time.UTC)); err != nil || u.ID != 41 {
		t.Errorf("Ann's session after the upgrade: %+v, %v", u, err)
	}
	pages, err := d.Pages(ctx, 11)
	if p := pages["https://old.example/a"]; err != nil || p.Modified == nil || !p.Modified.Equal(time.Date(2013, 1, 2, 13, 0, 2, 123456000, time.UTC)) {
		t.Errorf("page after the upgrade: %+v, %v", p, err)
	}

	// New writes, in the new types: a harvest that stores a change and a
	// flag, the trigger that stamps a site whose last follower left,
	// and a message claimed on the database's clock.
	at := time.Date(2026, 11, 3, 9, 0, 0, 654321000, time.UTC)
	run := storeRun(t, d, active[0], at, "", Change{URL: "https://old.example/c", Kind: "updated", Datetime: at, FromLastmod: true})
	if run.Changes != 1 {
		t.Errorf("a harvest after the upgrade stored %d changes; want 1", run.Changes)
	}
	got = nil
	err = d.ExportChanges(ctx, ExportFilter{}, func(c ExportedChange) error {
		if c.URL == "https://old.example/c" {
			got = append(got, c.Datetime.Format(time.RFC3339Nano), map[bool]string{true: "lastmod", false: "dated"}[c.FromLastmod])
		}
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"2026-11-03T09:00:00.654321Z", "lastmod"}) {
		t.Errorf("the change stored after the upgrade: %q, %v", got, err)
	}
	if err := d.Unfollow(ctx, 41, 7); err != nil {
		t.Fatal(err)
	}
	site, err = d.SiteByURL(ctx, "https://old.example/")
	if err != nil || site.UnfollowedAt == nil || time.Since(*site.UnfollowedAt).Abs() > time.Hour {
		t.Errorf("the site after its last follower left: unfollowed %v, %v; want now", site.UnfollowedAt, err)
	}
	m, err := d.ClaimOutbox(ctx, time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), time.Minute)
	if err != nil || m.ID != 51 {
		t.Errorf("claimed %+v, %v after the upgrade; want message 51", m, err)
	}
}

// TestPostgresSchemaUsesItsOwnTypes: on PostgreSQL every instant is a
// timestamptz and every flag a boolean, in a new database and in one
// upgraded; no column is left whose name says it holds a time while it
// holds text.
func TestPostgresSchemaUsesItsOwnTypes(t *testing.T) {
	if !testPostgres {
		t.Skip("PostgreSQL only")
	}
	d, target := openTest(t)
	ctx := context.Background()
	type col struct{ table, name, typ string }
	all, err := queryAll(ctx, d, "list columns", `SELECT table_name, column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name <> 'schema_version' ORDER BY table_name, column_name`,
		func(row scanner) (col, error) {
			var c col
			return c, row.Scan(&c.table, &c.name, &c.typ)
		})
	if err != nil {
		t.Fatal(err)
	}
	types := map[[2]string]string{}
	for _, c := range all {
		types[[2]string{c.table, c.name}] = c.typ
		looksLikeATime := c.name == "datetime" || c.name == "at" || c.name == "modified" || c.name == "failing_since" ||
			strings.HasSuffix(c.name, "_at") || strings.HasSuffix(c.name, "_until")
		if looksLikeATime && c.name != "held_until" && c.typ != "timestamp with time zone" {
			t.Errorf("%s.%s is %s; want timestamptz", c.table, c.name, c.typ)
		}
	}
	for table, cols := range postgresTimes {
		for _, c := range cols {
			if typ := types[[2]string{table, c}]; typ != "timestamp with time zone" {
				t.Errorf("%s.%s is %q; want timestamptz", table, c, typ)
			}
		}
	}
	for table, flags := range postgresFlags {
		for _, f := range flags {
			if typ := types[[2]string{table, f.col}]; typ != "boolean" {
				t.Errorf("%s.%s is %q; want boolean", table, f.col, typ)
			}
		}
	}
	var identity string
	if err := d.r.QueryRowContext(ctx, `SELECT is_identity FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'notify_settings' AND column_name = 'user_id'`).Scan(&identity); err != nil || identity != "NO" {
		t.Errorf("notify_settings.user_id is an identity: %q, %v; want a plain key", identity, err)
	}
	// The step runs again over itself, as every step must.
	setSchemaVersion(t, d, lastTextSchema)
	d.Close()
	again, err := Open(ctx, target)
	if err != nil {
		t.Fatalf("the steps after %d run again: %v", lastTextSchema, err)
	}
	again.Close()
}
