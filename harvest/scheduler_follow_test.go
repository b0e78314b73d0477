package harvest_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"tidings/harvest"
	"tidings/internal/fixturesite"
	"tidings/internal/harvesttest"
)

func TestFailingSiteBacksOffAndRecovers(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e := harvesttest.NewEnv(t, harvest.Options{Now: func() time.Time { return now }, Rand: func() float64 { return 0.5 }})
	e.Follow()
	for _, p := range []string{"/.well-known/resourcesync", "/shrine/capabilitylist.xml", "/gallery/caps.xml"} {
		e.Site.Fail(p, http.StatusServiceUnavailable)
	}
	for i, wait := range []time.Duration{5 * time.Minute, 10 * time.Minute, 20 * time.Minute} {
		rep := e.Harvest()
		s, _ := e.Store.SiteByID(context.Background(), rep.Site.ID)
		if s.Failures != i+1 || s.FailingSince == nil || !s.FailingSince.Equal(now.Add(-time.Duration(i)*time.Hour)) {
			t.Errorf("failure %d: failures %d since %v", i+1, s.Failures, s.FailingSince)
		}
		if got := s.NextHarvestAt.Sub(now); got != wait {
			t.Errorf("failure %d: next try in %v, want %v", i+1, got, wait)
		}
		now = now.Add(time.Hour)
	}
	for _, p := range []string{"/.well-known/resourcesync", "/shrine/capabilitylist.xml", "/gallery/caps.xml"} {
		e.Site.Fail(p, 0)
	}
	rep := e.Harvest()
	s, _ := e.Store.SiteByID(context.Background(), rep.Site.ID)
	if s.Failures != 0 || s.FailingSince != nil || s.NextHarvestAt.Sub(now) != 24*time.Hour {
		t.Errorf("after recovery: failures %d since %v next in %v", s.Failures, s.FailingSince, s.NextHarvestAt.Sub(now))
	}
}

func TestSchedulerWorkersAndHosts(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	e := harvesttest.NewEnv(t, harvest.Options{Now: clock})
	e.Follow()
	var sites []*fixturesite.Site
	var peak atomic.Int32
	for range 5 {
		s := fixturesite.New(time.Now())
		t.Cleanup(s.Close)
		if _, err := e.H.Follow(context.Background(), s.URL); err != nil {
			t.Fatal(err)
		}
		sites = append(sites, s)
	}
	// Make every site due, and slow, and count harvests running at once.
	now = now.Add(48 * time.Hour)
	for _, s := range append(sites, e.Site) {
		s.SetDelay(20 * time.Millisecond)
	}
	sched := e.H.NewScheduler(harvest.SchedulerOptions{Workers: 3})
	all, _ := e.Store.Sites(context.Background())
	// A host already being harvested is left alone; it takes one worker.
	release := make(chan struct{})
	sched.Occupy(all[0].URL, func() { <-release })
	deadline := time.Now().Add(20 * time.Second)
	for {
		sched.Dispatch(context.Background())
		n := int32(sched.Running() - 1)
		if n > peak.Load() {
			peak.Store(n)
		}
		due, _ := e.Store.DueSites(context.Background(), now)
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
	due, _ := e.Store.DueSites(context.Background(), now)
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
	e := harvesttest.NewEnv(t, harvest.Options{Now: func() time.Time { return now }})
	site := e.Follow().Site
	ann, err := e.Store.CreateUser(ctx, "ann", "x", "token", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Follow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Unfollow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	sched := e.H.NewScheduler(harvest.SchedulerOptions{UnfollowedRetention: 30 * 24 * time.Hour})
	now = now.Add(48 * time.Hour) // long past due
	requests := len(e.Site.Log())
	sched.Dispatch(ctx)
	sched.Wait()
	if n := len(e.Site.Log()) - requests; n != 0 {
		t.Errorf("a site nobody follows was harvested: %d requests", n)
	}

	sched.Sweep(ctx)
	if runs, _ := e.Store.Runs(ctx, site.ID, 10); len(runs) == 0 {
		t.Fatal("history deleted within the retention")
	}
	now = now.Add(30 * 24 * time.Hour)
	sched.Sweep(ctx)
	if runs, _ := e.Store.Runs(ctx, site.ID, 10); len(runs) != 0 {
		t.Errorf("history kept after the retention: %d runs", len(runs))
	}

	if err := e.Store.Follow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	sched.Dispatch(ctx)
	sched.Wait()
	if runs, _ := e.Store.Runs(ctx, site.ID, 10); len(runs) == 0 || len(e.Site.Log()) == requests {
		t.Errorf("followed again, the site was not harvested: %d runs", len(runs))
	}
	if len(e.Changes()) == 0 {
		t.Error("followed again, the site's first harvest stored no changes")
	}
}
