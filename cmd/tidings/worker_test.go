package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"tidings/db"
)

// TestServeNoSchedulerLeavesTheWorkToWorker: serve --no-scheduler
// neither harvests a due site nor runs a discovery someone asked for; a
// worker sharing the database does both.
func TestServeNoSchedulerLeavesTheWorkToWorker(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	site, asked := newSite(t), newSite(t)
	env := newEnv(t, "TIDINGS_INTERVAL", "1s")
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	store, err := db.Open(ctx, env["TIDINGS_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	u, err := store.CreateUser(ctx, "ann", "hash", "token", "")
	if err != nil {
		t.Fatal(err)
	}
	disc, err := store.CreateDiscovery(ctx, u.ID, 0, asked.URL)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // the site is due again
	before := len(site.Log())

	serveLogged(t, env, "--no-scheduler")
	// Longer than a worker takes to see either.
	time.Sleep(3 * time.Second)
	if n := len(site.Log()) - before; n != 0 {
		t.Errorf("serve --no-scheduler sent %d requests to a due site", n)
	}
	if n := len(asked.Log()); n != 0 {
		t.Errorf("serve --no-scheduler sent %d requests to a site asked for", n)
	}
	if d, _ := store.DiscoveryByID(ctx, disc.ID); d.Status != db.DiscoveryPending {
		t.Errorf("serve --no-scheduler ran a discovery: %+v", d)
	}

	wctx, cancel := context.WithCancel(ctx)
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(wctx, []string{"worker"}, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		d, _ := store.DiscoveryByID(ctx, disc.ID)
		s, _ := store.SiteByURL(ctx, site.URL+"/")
		if d.Status == db.DiscoveryFollowed && s.NextHarvestAt != nil && s.NextHarvestAt.After(time.Now()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the worker left discovery %+v and site %+v\n%s", d, s, stderr.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("worker: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "working on") {
		t.Errorf("worker said %q", stdout.String())
	}
}
