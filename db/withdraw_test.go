package db

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// withdraw withdraws the changes of urls as a harvest of col at does,
// with a run of its own, and returns how many of them went.
func withdraw(t *testing.T, d *DB, col Collection, at time.Time, urls []string) (int64, error) {
	t.Helper()
	ctx := context.Background()
	before, err := d.CountChangesOf(ctx, col.ID, urls)
	if err != nil {
		return 0, err
	}
	_, err = d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run:      Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at.Add(-time.Second), FinishedAt: at},
		Withdraw: urls,
	})
	if err != nil {
		return 0, err
	}
	after, err := d.CountChangesOf(ctx, col.ID, urls)
	if err != nil || after != 0 {
		t.Fatalf("%d changes of the pages left after withdrawing them, %v", after, err)
	}
	return before, nil
}

func TestWithdrawChangesKeepsDigestsRight(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	// The same page in another site's collection stays.
	other := testCollection(t, d, "gallery")
	t0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	secret, public := "https://shrine.example/secret", "https://shrine.example/public"
	first := storeRun(t, d, col, t0, "",
		Change{URL: secret, Kind: "created", Datetime: t0.Add(-time.Hour)},
		Change{URL: public, Kind: "created", Datetime: t0.Add(-time.Hour)},
		Change{URL: secret, Kind: "updated", Datetime: t0.AddDate(-1, 0, 0), History: true})
	second := storeRun(t, d, col, t0.Add(time.Hour), "", Change{URL: secret, Kind: "updated", Datetime: t0.Add(time.Minute)})
	storeRun(t, d, other, t0, "", Change{URL: secret, Kind: "created", Datetime: t0})

	if n, err := withdraw(t, d, col, t0.Add(2*time.Hour), []string{"https://shrine.example/unknown"}); err != nil || n != 0 {
		t.Fatalf("withdrawing a page with no changes: %d, %v", n, err)
	}
	if n, err := withdraw(t, d, col, t0.Add(2*time.Hour), nil); err != nil || n != 0 {
		t.Fatalf("withdrawing nothing: %d, %v", n, err)
	}
	n, err := withdraw(t, d, col, t0.Add(2*time.Hour), []string{secret, "https://shrine.example/unknown"})
	if err != nil || n != 3 {
		t.Fatalf("withdrawn %d, %v; want the page's 3 changes, history included", n, err)
	}

	digests, err := d.Digests(ctx, Scope{CollectionID: col.ID}, 10)
	if err != nil {
		t.Fatal(err)
	}
	// The second run's only change is gone, so its digest goes too.
	if len(digests) != 1 || digests[0].Run.ID != first.ID || digests[0].Run.Changes != 1 ||
		len(digests[0].Changes) != 1 || digests[0].Changes[0].URL != public {
		t.Errorf("digests after withdrawing %+v", digests)
	}
	runs, _ := d.Runs(ctx, col.SiteID, 10)
	for _, r := range runs {
		if r.ID == second.ID && r.Changes != 0 {
			t.Errorf("run %d still counts %d changes", r.ID, r.Changes)
		}
	}
	if c, _ := d.CollectionByID(ctx, col.ID); c.Changes != 1 {
		t.Errorf("collection keeps %d changes, want 1", c.Changes)
	}
	if kept, _ := d.FeedChanges(ctx, Scope{CollectionID: other.ID}, 10); len(kept) != 1 || kept[0].URL != secret {
		t.Errorf("the other collection's changes: %+v", kept)
	}
	if n, err := withdraw(t, d, col, t0.Add(2*time.Hour), []string{secret}); err != nil || n != 0 {
		t.Errorf("withdrawing again: %d, %v; want nothing left", n, err)
	}
}

// TestWithdrawManyPages withdraws more pages than one statement binds.
func TestWithdrawManyPages(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "wiki")
	at := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	const pages = 3*withdrawChunk + 7
	changes := make([]Change, pages)
	for i := range changes {
		changes[i] = Change{URL: fmt.Sprintf("https://wiki.example/p%04d", i), Kind: "updated", Datetime: at}
	}
	run := storeRun(t, d, col, at, "", changes...)
	if run.Changes != pages {
		t.Fatalf("stored %d changes, want %d", run.Changes, pages)
	}
	// Every page but the last, and as many that were never seen.
	var urls []string
	for i := range pages - 1 {
		urls = append(urls, changes[i].URL, fmt.Sprintf("https://wiki.example/never-%04d", i))
	}
	n, err := withdraw(t, d, col, at.Add(time.Hour), urls)
	if err != nil || n != pages-1 {
		t.Fatalf("withdrawn %d, %v; want %d", n, err, pages-1)
	}
	left, _ := d.FeedChanges(ctx, Scope{CollectionID: col.ID}, 10)
	if len(left) != 1 || left[0].URL != changes[pages-1].URL {
		t.Errorf("left %+v, want only the last page", left)
	}
	digests, _ := d.Digests(ctx, Scope{CollectionID: col.ID}, 10)
	if len(digests) != 1 || digests[0].Run.Changes != 1 {
		t.Errorf("digest after withdrawing %+v, want one change counted", digests)
	}
}
