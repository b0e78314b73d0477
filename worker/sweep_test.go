package worker

import (
	"context"
	"sync"
	"testing"
	"time"

	"tidings/db"
)

// TestSweepKeepsATimeAndACount: a site harvested daily, every page
// rewritten each day, swept after each harvest with a two-day retention:
// the changes of the last days stay, older ones go with their runs, the
// collection says how far it was pruned, and the site is measured.
func TestSweepKeepsATimeAndACount(t *testing.T) {
	ctx := context.Background()
	// After the collection is created, by the real clock: changes dated
	// before it would be stored as already seen.
	t0 := time.Now().UTC().Truncate(time.Second)
	now := t0
	store, h, _ := changingHarvester(t, &now, 5)
	site := newChangingSite(t, 5, 2000, false)
	r := Retention{KeepChangesFor: 48 * time.Hour, KeepChanges: 5}
	var swept Swept
	for k := range 5 {
		now = t0.Add(time.Duration(k) * 24 * time.Hour)
		site.rewrite(now)
		var err error
		if k == 0 {
			_, err = h.Follow(ctx, site.URL())
		} else {
			var s db.Site
			if s, err = store.SiteByURL(ctx, site.URL()); err == nil {
				_, err = h.HarvestSite(ctx, s)
			}
		}
		if err != nil {
			t.Fatalf("harvest %d: %v", k, err)
		}
		if swept, err = Sweep(ctx, store, now, r); err != nil {
			t.Fatal(err)
		}
	}
	if swept.Changes != 5 || swept.Collections != 1 || swept.Measured != 1 {
		t.Errorf("the last sweep: %+v, want one day's 5 changes of 1 collection, 1 site measured", swept)
	}
	cols, err := store.Collections(ctx, db.CollectionFilter{})
	if err != nil || len(cols) != 1 {
		t.Fatalf("collections: %v, %v", cols, err)
	}
	col := cols[0]
	if col.Changes != 15 || col.History != 0 {
		t.Errorf("%d changes in the feed, %d history; want the last three days' 15", col.Changes, col.History)
	}
	if want := t0.Add(24 * time.Hour); col.PrunedUntil == nil || !col.PrunedUntil.Equal(want) {
		t.Errorf("pruned until %v, want %v", col.PrunedUntil, want)
	}
	runs, err := store.Runs(ctx, col.SiteID, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		if run.CollectionID != 0 && run.FinishedAt.Before(now.Add(-r.KeepChangesFor)) {
			t.Errorf("a run of %v, past the retention, is kept with %d changes", run.FinishedAt, run.Changes)
		}
	}
	list, err := store.SitesByStorage(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("sites by storage: %v, %v", list, err)
	}
	// Fifteen changes with their diffs and five snapshots of 2 KB of
	// text each, compressed.
	if b := list[0].Bytes; b < 5_000 || b > 200_000 || list[0].MeasuredAt == nil {
		t.Errorf("the site stores %d bytes, measured at %v", b, list[0].MeasuredAt)
	}
}

// TestSchedulerSweepsEveryHour: the scheduler sweeps when it starts, then
// once SweepEvery has passed, not at every tick.
func TestSchedulerSweepsEveryHour(t *testing.T) {
	ctx := context.Background()
	// After the collection is created, by the real clock: changes dated
	// before it would be stored as already seen.
	t0 := time.Now().UTC().Truncate(time.Second)
	now := t0
	store, h, _ := changingHarvester(t, &now, 2)
	site := newChangingSite(t, 2, 500, false)
	site.rewrite(now)
	if _, err := h.Follow(ctx, site.URL()); err != nil {
		t.Fatal(err)
	}
	sched := NewScheduler(store, h, SchedulerOptions{Now: func() time.Time { return now }})
	measured := func() bool {
		t.Helper()
		list, err := store.SitesByStorage(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("sites by storage: %v, %v", list, err)
		}
		return list[0].MeasuredAt != nil
	}
	var wg sync.WaitGroup
	sweep := func() {
		sched.sweepDue(ctx, &wg)
		wg.Wait()
	}
	sweep()
	if !measured() {
		t.Fatal("the first sweep measured nothing")
	}
	s, err := store.SiteByURL(ctx, site.URL())
	if err != nil {
		t.Fatal(err)
	}
	site.rewrite(now)
	if _, err := h.HarvestSite(ctx, s); err != nil {
		t.Fatal(err)
	}
	now = now.Add(59 * time.Minute)
	sweep()
	if measured() {
		t.Error("swept again within the hour")
	}
	now = now.Add(time.Minute)
	sweep()
	if !measured() {
		t.Error("not swept once the hour had passed")
	}
}
