package db

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// testCollection creates a site with one collection.
func testCollection(t *testing.T, d *DB, name string) Collection {
	t.Helper()
	ctx := context.Background()
	site, err := d.CreateSite(ctx, Site{URL: "https://" + name + ".example/", InputURL: "https://" + name + ".example/"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := d.SyncCollections(ctx, site.ID, []CollectionSpec{{Protocol: "resourcesync", Key: site.URL, SourceURL: site.URL + "caps.xml", Title: name}})
	if err != nil || len(cols) != 1 {
		t.Fatalf("sync: %v, %v", cols, err)
	}
	return cols[0]
}

// storeRun stores one harvest of col finishing at at, failed when msg is
// set, with the given changes.
func storeRun(t *testing.T, d *DB, col Collection, at time.Time, msg string, changes ...Change) Run {
	t.Helper()
	run, err := d.SaveCollectionHarvest(context.Background(), CollectionHarvest{
		Run:     Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at.Add(-time.Second), FinishedAt: at, Error: msg},
		Changes: changes,
	})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestOutagesFollowFailingStreaks(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	other := testCollection(t, d, "gallery")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	h := func(n int) time.Time { return t0.Add(time.Duration(n) * 12 * time.Hour) }

	storeRun(t, d, col, h(0), "")
	for n := 1; n <= 8; n++ { // days 0.5 to 4: a streak of 3.5 days
		storeRun(t, d, col, h(n), fmt.Sprintf("failure %d", n))
	}
	storeRun(t, d, col, h(9), "")
	storeRun(t, d, col, h(10), "short") // one failure, then fine
	storeRun(t, d, col, h(11), "")
	storeRun(t, d, other, h(1), "other fails")
	storeRun(t, d, other, h(12), "other still fails")

	// A negative threshold lists every streak, single failures included.
	all, err := d.Outages(ctx, Scope{CollectionID: col.ID}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Failures != 8 || all[1].Failures != 1 {
		t.Fatalf("outages of the collection: %+v, want streaks of 8 and 1 failures", all)
	}
	if !all[0].StartedAt.Equal(h(1)) || !all[0].LastFailedAt.Equal(h(8)) || all[0].EndedAt == nil || !all[0].EndedAt.Equal(h(9)) || all[0].Error != "failure 8" {
		t.Errorf("first streak %+v", all[0])
	}

	long, err := d.Outages(ctx, Scope{CollectionID: col.ID}, 72*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(long) != 1 {
		t.Fatalf("streaks over 3 days: %+v, want 1", long)
	}
	// The streak began at h(1); h(7) is exactly 3 days later, so h(8) is
	// the first failure seen more than 3 days in.
	if !long[0].NoticedAt.Equal(h(8)) || long[0].NoticedError != "failure 8" {
		t.Errorf("noticed at %v (%q), want %v (failure 8)", long[0].NoticedAt, long[0].NoticedError, h(8))
	}

	open, err := d.Outages(ctx, Scope{SiteID: other.SiteID}, 72*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 1 || open[0].EndedAt != nil || open[0].CollectionID != other.ID || !open[0].NoticedAt.Equal(h(12)) {
		t.Errorf("the other site's streak: %+v", open)
	}
	if none, _ := d.Outages(ctx, Scope{SiteID: other.SiteID}, 10*24*time.Hour); len(none) != 0 {
		t.Errorf("a 10-day threshold still reports %+v", none)
	}
}

// TestMigrationFourFindsStreaksUnderWay opens a database at schema 3
// whose collection is failing: the migration opens its streak from the
// failures since the last success.
func TestMigrationFourFindsStreaksUnderWay(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	d, path := openTest(t)
	col := testCollection(t, d, "shrine")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	storeRun(t, d, col, t0, "old failure")
	storeRun(t, d, col, t0.Add(time.Hour), "")
	storeRun(t, d, col, t0.Add(2*time.Hour), "failure A")
	storeRun(t, d, col, t0.Add(3*time.Hour), "failure B")
	// Rewind to schema 3: undo migrations 4 to 9.
	for _, q := range append(undoMigrationNine, "DROP TABLE outages", "ALTER TABLE sites DROP COLUMN discovered_at", "ALTER TABLE sites DROP COLUMN failures",
		"ALTER TABLE sites DROP COLUMN failing_since", "ALTER TABLE fetch_state DROP COLUMN digest",
		"ALTER TABLE pages DROP COLUMN title", "ALTER TABLE pages DROP COLUMN summary", "PRAGMA user_version = 3") {
		if _, err := d.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	got, err := again.Outages(ctx, Scope{CollectionID: col.ID}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].StartedAt.Equal(t0.Add(2*time.Hour)) || !got[0].LastFailedAt.Equal(t0.Add(3*time.Hour)) ||
		got[0].Failures != 2 || got[0].EndedAt != nil || got[0].Error != "failure B" {
		t.Fatalf("streak after migration: %+v", got)
	}
	// The streak goes on from there.
	storeRun(t, again, col, t0.Add(4*time.Hour), "")
	got, _ = again.Outages(ctx, Scope{CollectionID: col.ID}, -1)
	if len(got) != 1 || got[0].EndedAt == nil {
		t.Errorf("after a success: %+v", got)
	}
}

func TestPagingAndStamp(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	empty, err := d.Stamp(ctx, Scope{CollectionID: col.ID})
	if err != nil || empty.LastAdded != nil {
		t.Fatalf("stamp before any harvest: %+v, %v", empty, err)
	}
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 7 {
		at := t0.Add(time.Duration(i) * time.Hour)
		// Two changes at one instant, so pages split ties by id.
		storeRun(t, d, col, at,
			"", Change{URL: fmt.Sprintf("https://shrine.example/%d-a", i), Kind: "updated", Datetime: at},
			Change{URL: fmt.Sprintf("https://shrine.example/%d-b", i), Kind: "updated", Datetime: at})
	}
	scope := Scope{CollectionID: col.ID}
	var seen []string
	b := Before{}
	for range 10 {
		page, err := d.FeedChangesBefore(ctx, scope, b, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page {
			seen = append(seen, c.URL)
		}
		if len(page) < 3 {
			break
		}
		last := page[len(page)-1]
		b = Before{At: last.Datetime, ID: last.ID}
	}
	if len(seen) != 14 || seen[0] != "https://shrine.example/6-b" || seen[13] != "https://shrine.example/0-a" {
		t.Errorf("paged changes %q, want all 14 newest first", seen)
	}
	runs := 0
	b = Before{}
	for range 10 {
		page, err := d.DigestsBefore(ctx, scope, b, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range page {
			runs++
			if len(g.Changes) != 2 {
				t.Errorf("digest of run %d has %d changes, want 2", g.Run.ID, len(g.Changes))
			}
		}
		if len(page) < 2 {
			break
		}
		b = Before{At: page[1].Run.FinishedAt, ID: page[1].Run.ID}
	}
	if runs != 7 {
		t.Errorf("paged %d digests, want 7", runs)
	}

	before, err := d.Stamp(ctx, scope)
	if err != nil || before.LastAdded == nil || !before.LastAdded.Equal(t0.Add(6*time.Hour)) {
		t.Fatalf("stamp: %+v, %v", before, err)
	}
	storeRun(t, d, col, t0.Add(7*time.Hour), "")
	after, _ := d.Stamp(ctx, scope)
	if after.Version == before.Version || !after.LastAdded.Equal(*before.LastAdded) {
		t.Errorf("a harvest that added nothing: version %q -> %q, last added %v -> %v", before.Version, after.Version, before.LastAdded, after.LastAdded)
	}
	u, err := d.CreateUser(ctx, "ann", "x", "tok", "")
	if err != nil {
		t.Fatal(err)
	}
	us, _ := d.Stamp(ctx, Scope{UserID: u.ID})
	if err := d.Follow(ctx, u.ID, col.SiteID); err != nil {
		t.Fatal(err)
	}
	followed, _ := d.Stamp(ctx, Scope{UserID: u.ID})
	if followed.Version == us.Version || followed.LastAdded == nil {
		t.Errorf("following a site left the user's stamp %q (was %q), last added %v", followed.Version, us.Version, followed.LastAdded)
	}
	tokens, err := d.FollowerFeedTokens(ctx, col.SiteID)
	if err != nil || len(tokens) != 1 || tokens[0] != "tok" {
		t.Errorf("follower tokens %q, %v", tokens, err)
	}
}
