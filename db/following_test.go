package db

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFirstCompleteHarvestIsFollowing: a collection's first harvest
// without an error is marked, with the pages known then (a deleted page
// not among them), and its digest lists the newest change of each page
// as of then, history included, whatever later harvests store.
func TestFirstCompleteHarvestIsFollowing(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	old := func(url, kind string, days int) Change {
		return Change{URL: "https://shrine.example/" + url, Kind: kind, Datetime: t0.AddDate(0, 0, -days), History: true}
	}
	failed := storeRun(t, d, col, t0, "the change list returned 500", old("a", "created", 90))
	first := storeRun(t, d, col, t0.Add(time.Hour), "",
		old("a", "updated", 60), old("b", "created", 80), old("c", "created", 70), old("c", "deleted", 50))
	later := storeRun(t, d, col, t0.Add(2*time.Hour), "", Change{URL: "https://shrine.example/d", Kind: "created", Datetime: t0.Add(time.Hour)})
	if failed.Following || !first.Following || first.Pages != 2 || later.Following {
		t.Fatalf("following: failed %v, first %v (%d pages), later %v", failed.Following, first.Following, first.Pages, later.Following)
	}
	got, err := d.Digests(ctx, Scope{CollectionID: col.ID}, 10)
	if err != nil {
		t.Fatal(err)
	}
	// The failed run put nothing in the feed: no digest of its own.
	if len(got) != 2 || got[0].Run.ID != later.ID || got[1].Run.ID != first.ID || !got[1].Following || got[1].Run.Pages != 2 {
		t.Fatalf("digests %+v", got)
	}
	var listed []string
	for _, c := range got[1].Changes {
		listed = append(listed, c.URL[len("https://shrine.example/"):]+" "+c.Kind)
	}
	if want := "c deleted,a updated,b created"; strings.Join(listed, ",") != want {
		t.Errorf("the first harvest lists %q, want %q: each page's latest change as of then, newest first", strings.Join(listed, ","), want)
	}
	following, err := d.FollowingBefore(ctx, Scope{SiteID: col.SiteID}, Before{}, 10)
	if err != nil || len(following) != 1 || following[0].Run.ID != first.ID {
		t.Errorf("FollowingBefore: %+v, %v", following, err)
	}
	c, err := d.CollectionByID(ctx, col.ID)
	if err != nil || c.Changes != 1 || c.History != 5 {
		t.Errorf("collection counts %d in the feed, %d history (%v); want 1 and 5", c.Changes, c.History, err)
	}
}

// TestMigrationMarksFirstHarvests: collections harvested before
// the migration of "now following" runs get their "now following" run from their first run
// without an error.
func TestMigrationMarksFirstHarvests(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	d, path := openTest(t)
	col := testCollection(t, d, "shrine")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	storeRun(t, d, col, t0, "the change list returned 500")
	first := storeRun(t, d, col, t0.Add(time.Hour), "",
		Change{URL: "https://shrine.example/a", Kind: "created", Datetime: t0.AddDate(0, -3, 0), History: true},
		Change{URL: "https://shrine.example/b", Kind: "created", Datetime: t0.Add(-time.Hour)})
	storeRun(t, d, col, t0.Add(2*time.Hour), "", Change{URL: "https://shrine.example/c", Kind: "created", Datetime: t0.Add(time.Hour)})
	step := slices.IndexFunc(migrations, func(m step) bool { return strings.Contains(m.sqlite, "ADD COLUMN following") })
	for _, q := range append(undoFollowing, fmt.Sprintf("PRAGMA user_version = %d", step)) {
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
	got, err := again.FollowingBefore(ctx, Scope{CollectionID: col.ID}, Before{}, 10)
	if err != nil || len(got) != 1 || got[0].Run.ID != first.ID || got[0].Run.Pages != 2 || len(got[0].Changes) != 2 {
		t.Fatalf("after the migration: %+v, %v; want run %d with 2 pages and 2 changes", got, err, first.ID)
	}
}
