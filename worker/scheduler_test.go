package worker

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/fixturesite"
)

func TestSchedulerWorkersAndHosts(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	store, h := testHarvester(t, harvest.Options{Now: clock})
	var sites []*fixturesite.Site
	var peak atomic.Int32
	for range 6 {
		s := fixturesite.New(time.Now())
		t.Cleanup(s.Close)
		followSite(t, h, s)
		sites = append(sites, s)
	}
	// Make every site due, and slow, and count harvests running at once.
	now = now.Add(48 * time.Hour)
	for _, s := range sites {
		s.SetDelay(20 * time.Millisecond)
	}
	sched := NewScheduler(store, h, SchedulerOptions{Workers: 3, Now: clock})
	all, _ := store.Sites(context.Background())
	// A host already being harvested is left alone; it takes one worker.
	release := make(chan struct{})
	sched.pool.tryGo(context.Background(), HostOf(all[0].URL), func(context.Context) { <-release })
	deadline := time.Now().Add(20 * time.Second)
	for {
		sched.Dispatch(context.Background())
		n := int32(sched.pool.running() - 1)
		if n > peak.Load() {
			peak.Store(n)
		}
		due, _ := store.DueSites(context.Background(), now)
		if (n == 0 && len(due) <= 1) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	sched.Wait()
	if p := peak.Load(); p > 2 || p == 0 {
		t.Errorf("peak harvests at once = %d, want 1 or 2 (2 workers free)", p)
	}
	due, _ := store.DueSites(context.Background(), now)
	if len(due) != 1 || due[0].ID != all[0].ID {
		t.Errorf("due after the scheduler ran: %d sites, want only the one whose host was busy", len(due))
	}
	if sched.Heartbeat().IsZero() {
		t.Error("no heartbeat")
	}
}

// TestSchedulerLeavesUnfollowedSites: a site whose last follower left is
// not harvested; its history goes once the retention has passed; a new
// follower brings its harvests back.
func TestSchedulerLeavesUnfollowedSites(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	clock := func() time.Time { return now }
	store, h := testHarvester(t, harvest.Options{Now: clock})
	fsite := fixturesite.New(time.Now())
	t.Cleanup(fsite.Close)
	site := followSite(t, h, fsite).Site
	ann, err := store.CreateUser(ctx, "ann", "x", "token", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Follow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	if err := store.Unfollow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	sched := NewScheduler(store, h, SchedulerOptions{Retention: Retention{Unfollowed: 30 * 24 * time.Hour}, Now: clock})
	now = now.Add(48 * time.Hour) // long past due
	requests := len(fsite.Log())
	sched.Dispatch(ctx)
	sched.Wait()
	if n := len(fsite.Log()) - requests; n != 0 {
		t.Errorf("a site nobody follows was harvested: %d requests", n)
	}

	sched.Sweep(ctx)
	if runs, _ := store.Runs(ctx, site.ID, 10); len(runs) == 0 {
		t.Fatal("history deleted within the retention")
	}
	now = now.Add(30 * 24 * time.Hour)
	sched.Sweep(ctx)
	if runs, _ := store.Runs(ctx, site.ID, 10); len(runs) != 0 {
		t.Errorf("history kept after the retention: %d runs", len(runs))
	}

	if err := store.Follow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	sched.Dispatch(ctx)
	sched.Wait()
	if runs, _ := store.Runs(ctx, site.ID, 10); len(runs) == 0 || len(fsite.Log()) == requests {
		t.Errorf("followed again, the site was not harvested: %d runs", len(runs))
	}
	n := 0
	if err := store.ExportChanges(ctx, db.ExportFilter{}, func(db.ExportedChange) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("followed again, the site's first harvest stored no changes")
	}
}

// TestOneProcessSweeps: of two schedulers sharing a database, the one
// that swept first keeps the turn for SweepEvery; the other does not
// sweep meanwhile.
func TestOneProcessSweeps(t *testing.T) {
	ctx := t.Context()
	store, h := testHarvester(t, harvest.Options{})
	first := NewScheduler(store, h, SchedulerOptions{Pool: NewSharedPool(store, Sharing{Holder: "first"})})
	second := NewScheduler(store, h, SchedulerOptions{Pool: NewSharedPool(store, Sharing{Holder: "second"})})
	if !first.takeSweep(ctx) {
		t.Fatal("the first to sweep did not take the turn")
	}
	if second.takeSweep(ctx) {
		t.Error("a second process took the sweep's turn within SweepEvery")
	}
	if !first.takeSweep(ctx) {
		t.Error("the process whose turn it is lost it")
	}
	first.Sweep(ctx)
	leases, err := store.HostLeases(ctx)
	if err != nil || len(leases) != 1 || leases[0].Holder != "first" {
		t.Errorf("leases %+v, %v", leases, err)
	}
}
