package harvest

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"tidings/internal/fixturesite"
)

func TestNextHarvestJitterBackoffRetryAfter(t *testing.T) {
	h := New(nil, nil, Options{Interval: 24 * time.Hour, Rand: func() float64 { return 0 }})
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if got := h.nextHarvest(start, false, 0, 0).Sub(start); got != 24*time.Hour-144*time.Minute {
		t.Errorf("success with the lowest jitter: %v, want 21h36m", got)
	}
	h.opts.Rand = func() float64 { return 0.999999 }
	if got := h.nextHarvest(start, false, 0, 0).Sub(start); got < 26*time.Hour+23*time.Minute || got > 26*time.Hour+24*time.Minute {
		t.Errorf("success with the highest jitter: %v, want about 26h24m", got)
	}
	want := []time.Duration{5 * time.Minute, 10 * time.Minute, 20 * time.Minute, 40 * time.Minute, 80 * time.Minute,
		160 * time.Minute, 320 * time.Minute, 640 * time.Minute, 1280 * time.Minute, 24 * time.Hour, 24 * time.Hour}
	for n, w := range want {
		if got := h.nextHarvest(start, true, n, 0).Sub(start); got != w {
			t.Errorf("after %d earlier failures: wait %v, want %v", n, got, w)
		}
	}
	if got := h.nextHarvest(start, true, 0, 3*time.Hour).Sub(start); got != 3*time.Hour {
		t.Errorf("failure with Retry-After 3h: %v", got)
	}
	if got := h.nextHarvest(start, false, 0, 30*24*time.Hour).Sub(start); got != 7*24*time.Hour {
		t.Errorf("a month-long Retry-After: %v, want the 7-day cap", got)
	}
}

func TestJitterSpreadsSitesFollowedTogether(t *testing.T) {
	h := New(nil, nil, Options{Interval: 24 * time.Hour})
	start := time.Now()
	lo, hi := time.Duration(1<<62), time.Duration(0)
	for range 1000 {
		d := h.nextHarvest(start, false, 0, 0).Sub(start)
		lo, hi = min(lo, d), max(hi, d)
	}
	if hi-lo < 4*time.Hour {
		t.Errorf("1,000 sites harvested together are next due within %v of each other; want them spread over hours", hi-lo)
	}
}

func TestFailingSiteBacksOffAndRecovers(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, Options{Now: func() time.Time { return now }, Rand: func() float64 { return 0.5 }})
	e.follow()
	for _, p := range []string{"/.well-known/resourcesync", "/shrine/capabilitylist.xml", "/gallery/caps.xml"} {
		e.site.Fail(p, http.StatusServiceUnavailable)
	}
	for i, wait := range []time.Duration{5 * time.Minute, 10 * time.Minute, 20 * time.Minute} {
		rep := e.harvest()
		s, _ := e.store.SiteByID(context.Background(), rep.Site.ID)
		if s.Failures != i+1 || s.FailingSince == nil || !s.FailingSince.Equal(now.Add(-time.Duration(i)*time.Hour)) {
			t.Errorf("failure %d: failures %d since %v", i+1, s.Failures, s.FailingSince)
		}
		if got := s.NextHarvestAt.Sub(now); got != wait {
			t.Errorf("failure %d: next try in %v, want %v", i+1, got, wait)
		}
		now = now.Add(time.Hour)
	}
	for _, p := range []string{"/.well-known/resourcesync", "/shrine/capabilitylist.xml", "/gallery/caps.xml"} {
		e.site.Fail(p, 0)
	}
	rep := e.harvest()
	s, _ := e.store.SiteByID(context.Background(), rep.Site.ID)
	if s.Failures != 0 || s.FailingSince != nil || s.NextHarvestAt.Sub(now) != 24*time.Hour {
		t.Errorf("after recovery: failures %d since %v next in %v", s.Failures, s.FailingSince, s.NextHarvestAt.Sub(now))
	}
}

func TestSchedulerWorkersAndHosts(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	e := newEnv(t, Options{Now: clock})
	e.follow()
	var sites []*fixturesite.Site
	var peak atomic.Int32
	for range 5 {
		s := fixturesite.New(time.Now())
		t.Cleanup(s.Close)
		if _, err := e.h.Follow(context.Background(), s.URL); err != nil {
			t.Fatal(err)
		}
		sites = append(sites, s)
	}
	// Make every site due, and slow, and count harvests running at once.
	now = now.Add(48 * time.Hour)
	for _, s := range append(sites, e.site) {
		s.SetDelay(20 * time.Millisecond)
	}
	sched := e.h.NewScheduler(SchedulerOptions{Workers: 3})
	all, _ := e.store.Sites(context.Background())
	// A host already being harvested is left alone; it takes one worker.
	release := make(chan struct{})
	sched.pool.tryGo(hostOf(all[0].URL), func() { <-release })
	deadline := time.Now().Add(20 * time.Second)
	for {
		sched.Dispatch(context.Background())
		n := int32(sched.pool.running() - 1)
		if n > peak.Load() {
			peak.Store(n)
		}
		due, _ := e.store.DueSites(context.Background(), now)
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
	due, _ := e.store.DueSites(context.Background(), now)
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
	e := newEnv(t, Options{Now: func() time.Time { return now }})
	site := e.follow().Site
	ann, err := e.store.CreateUser(ctx, "ann", "x", "token", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.Follow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Unfollow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	sched := e.h.NewScheduler(SchedulerOptions{UnfollowedRetention: 30 * 24 * time.Hour})
	now = now.Add(48 * time.Hour) // long past due
	requests := len(e.site.Log())
	sched.Dispatch(ctx)
	sched.Wait()
	if n := len(e.site.Log()) - requests; n != 0 {
		t.Errorf("a site nobody follows was harvested: %d requests", n)
	}

	sched.Sweep(ctx)
	if runs, _ := e.store.Runs(ctx, site.ID, 10); len(runs) == 0 {
		t.Fatal("history deleted within the retention")
	}
	now = now.Add(30 * 24 * time.Hour)
	sched.Sweep(ctx)
	if runs, _ := e.store.Runs(ctx, site.ID, 10); len(runs) != 0 {
		t.Errorf("history kept after the retention: %d runs", len(runs))
	}

	if err := e.store.Follow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	sched.Dispatch(ctx)
	sched.Wait()
	if runs, _ := e.store.Runs(ctx, site.ID, 10); len(runs) == 0 || len(e.site.Log()) == requests {
		t.Errorf("followed again, the site was not harvested: %d runs", len(runs))
	}
	if len(e.changes()) == 0 {
		t.Error("followed again, the site's first harvest stored no changes")
	}
}
