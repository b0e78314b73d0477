package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"tidings/internal/feedpaths"
	"tidings/internal/pgtest"
)

// TestPostgresOutage: a serve and a worker harvest loopback sites on one
// PostgreSQL, which goes away for 20 s in the middle of the harvests
// (every connection reset, new ones refused). Meanwhile serve answers a
// feed it never served with 503 and Retry-After, a feed it had served
// with its cached copy, and /healthz with 503 naming the database; the
// schedulers say once that harvests are paused. Once the server is back,
// both recover without a restart, harvests resume, and every change is
// stored once.
func TestPostgresOutage(t *testing.T) {
	direct := pgtest.NewDatabase(t)
	proxied, proxy := pgtest.Through(t, direct)
	const (
		sites     = 12
		changes   = 2
		hostDelay = 300 * time.Millisecond
		outage    = 20 * time.Second
	)
	ctx := t.Context()
	bin := buildTidings(t)
	fleet, store, start := dueFleet(t, direct, sites, changes, 100*time.Millisecond)
	cached := feedpaths.Public(t, store, "/feeds/1.atom")
	uncached := feedpaths.Public(t, store, "/feeds/2.rss")

	env := cleanEnv("TIDINGS_DB="+proxied, "TIDINGS_ALLOW_PRIVATE_ADDRESSES=1", "TIDINGS_HOST_DELAY="+hostDelay.String(),
		"TIDINGS_LOG_FORMAT=json", "TIDINGS_BASE_URL="+testBase, "TIDINGS_WORKERS=2")
	addr := freeAddr(t)
	base := "http://" + addr
	serve := startServe(t, bin, append(env, "TIDINGS_ADDR="+addr), base+"/")
	get := func(path string) (int, string, http.Header) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err.Error(), nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	code, before, _ := get(cached)
	if code != http.StatusOK {
		t.Fatalf("GET %s before the outage: %d", cached, code)
	}
	worker := startWorker(t, bin, env)
	procs := []*served{serve, worker}
	// The server goes away once the first harvests are stored, while
	// others are under way.
	for deadline := time.Now().Add(60 * time.Second); len(harvestedBy(procs)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no site harvested in 60 s\nserve:\n%s\nworker:\n%s", serve.stderr.String(), worker.stderr.String())
		}
	}
	proxy.Cut()
	cutAt := time.Now()
	t.Logf("the database went away after %d of %d sites were harvested", len(harvestedBy(procs)), sites)
	answers := map[string]int{}
	for time.Since(cutAt) < outage {
		time.Sleep(time.Second)
		code, body, h := get(uncached)
		answers[fmt.Sprintf("%s %d", uncached, code)]++
		if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
			t.Errorf("GET %s during the outage: %d (Retry-After %q)", uncached, code, h.Get("Retry-After"))
		}
		code, body, _ = get(cached)
		answers[fmt.Sprintf("%s %d", cached, code)]++
		if code != http.StatusOK || body != before {
			t.Errorf("GET %s during the outage: %d, want its cached copy", cached, code)
		}
		code, body, _ = get("/healthz")
		answers[fmt.Sprintf("/healthz %d", code)]++
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "database: ") || strings.Contains(body, "database: ok") {
			t.Errorf("GET /healthz during the outage: %d %q", code, body)
		}
	}
	t.Logf("answers during the %s outage: %v", outage, answers)

	proxy.Restore()
	back := time.Now()
	for _, path := range []string{"/healthz", uncached} {
		for {
			if code, _, _ := get(path); code == http.StatusOK {
				break
			}
			if time.Since(back) > 30*time.Second {
				t.Fatalf("GET %s still fails 30 s after the database came back", path)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	t.Logf("serve answered /healthz and %s again %s after the database came back", uncached, time.Since(back).Round(10*time.Millisecond))
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		due, err := store.DueSites(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sites still due two minutes after the database came back\nworker:\n%s", len(due), worker.stderr.String())
		}
	}
	t.Logf("every site harvested %s after the database came back", time.Since(back).Round(10*time.Millisecond))
	for _, p := range procs {
		p.stop(t, syscall.SIGTERM)
	}

	changesOnce(t, store, fleet, changes)
	paused, resumed := 0, 0
	for _, p := range procs {
		log := p.stderr.String()
		if strings.Contains(log, "harvests are paused until it does") {
			paused++
		}
		if strings.Contains(log, "harvests resume") {
			resumed++
		}
	}
	if paused == 0 || paused != resumed {
		t.Errorf("%d processes said harvests were paused, %d that they resumed; want at least one, each that paused resumed\nserve:\n%s\nworker:\n%s",
			paused, resumed, serve.stderr.String(), worker.stderr.String())
	}
}
