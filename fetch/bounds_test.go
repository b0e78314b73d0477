package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRobotsCacheIsBounded: the copies kept stay within their number and
// bytes, the least recently used going first, and no per-host lock is left
// behind once its fetch is done.
func TestRobotsCacheIsBounded(t *testing.T) {
	rc := &robotsCache{maxEntries: 3, maxBytes: 1000}
	body := func(n int) robotsEntry { return robotsEntry{body: make([]byte, n), fetched: time.Now()} }
	for i := range 5 {
		rc.put(fmt.Sprintf("http://h%d", i), body(100))
	}
	// Each copy costs its body and its parsed rules: 3 × 100 bytes.
	if rc.lru.Len() != 3 || len(rc.m) != 3 || rc.bytes != 900 {
		t.Fatalf("kept %d (%d in the map), costing %d; want 3 and 900", rc.lru.Len(), len(rc.m), rc.bytes)
	}
	for _, gone := range []string{"http://h0", "http://h1"} {
		if _, ok := rc.peek(gone); ok {
			t.Errorf("%s is still kept", gone)
		}
	}
	rc.peek("http://h2") // now the most recently used
	rc.put("http://h5", body(100))
	if _, ok := rc.peek("http://h2"); !ok {
		t.Error("the copy just used was dropped")
	}
	if _, ok := rc.peek("http://h3"); ok {
		t.Error("the least recently used copy was kept")
	}
	rc.put("http://big", body(300))
	if rc.bytes > 1000 {
		t.Errorf("copies costing %d kept, over the budget of 1000", rc.bytes)
	}
	if _, ok := rc.peek("http://big"); !ok {
		t.Error("the newest copy was dropped")
	}
	rc.seed("http://big", robotsEntry{body: make([]byte, 10), fetched: time.Now().Add(-time.Hour)})
	if e, _ := rc.peek("http://big"); len(e.body) != 300 {
		t.Error("an older seed replaced a newer copy")
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: *\nAllow: /\n"))
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{AllowPrivate: true})
	for range 3 {
		if _, err := c.Get(context.Background(), srv.URL+"/page", Conditional{}); err != nil {
			t.Fatal(err)
		}
	}
	c.robots.mu.Lock()
	defer c.robots.mu.Unlock()
	if len(c.robots.locks) != 0 {
		t.Errorf("%d per-host locks left behind", len(c.robots.locks))
	}
}

// TestRobotsTxtIsReadTo500KiB: a huge robots.txt is read only to the
// 500 KiB RFC 9309 asks crawlers to parse, rules past it are ignored, and
// what is kept is no larger.
func TestRobotsTxtIsReadTo500KiB(t *testing.T) {
	filler := "# " + strings.Repeat("x", 78) + "\n"
	huge := "User-agent: *\nDisallow: /early/\n" + strings.Repeat(filler, (2<<20)/len(filler)) + "Disallow: /late/\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte(huge))
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{AllowPrivate: true})
	ctx := context.Background()
	if _, err := c.Get(ctx, srv.URL+"/early/x", Conditional{}); err == nil {
		t.Error("a rule in the first 500 KiB was not honoured")
	}
	if _, err := c.Get(ctx, srv.URL+"/late/x", Conditional{}); err != nil {
		t.Errorf("a rule past 500 KiB was honoured: %v", err)
	}
	r, ok := c.KeptRobots(srv.URL)
	if !ok || len(r.Body) != 500<<10 || cap(r.Body) > 600<<10 {
		t.Errorf("kept %d bytes (capacity %d), want 500 KiB", len(r.Body), cap(r.Body))
	}
}

// TestPacerForgetsHostsWhoseSlotPassed: a serve that meets hosts without
// end remembers at most maxPacedHosts of them, keeping those still waiting.
func TestPacerForgetsHostsWhoseSlotPassed(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	p := &pacer{def: time.Second, now: func() time.Time { return now },
		sleep: func(context.Context, time.Duration) error { return nil }}
	add := func(from, n int) {
		for i := range n {
			p.wait(context.Background(), fmt.Sprintf("h%d.example", from+i))
			now = now.Add(time.Millisecond)
		}
	}
	add(0, 2*maxPacedHosts)
	p.set("slow.example", 20*time.Second)
	p.wait(context.Background(), "slow.example")
	add(2*maxPacedHosts, 2*maxPacedHosts)
	if n := len(p.hosts); n > maxPacedHosts {
		t.Errorf("%d hosts remembered, more than %d", n, maxPacedHosts)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.hosts["slow.example"]; s == nil || s.delay != 20*time.Second {
		t.Error("a host whose next slot is still ahead was forgotten")
	}
}

// TestHeldRobotsCopiesAreNotEvicted: the copy of a host whose harvest is
// under way stays, however many hosts come after it, and goes once
// released.
func TestHeldRobotsCopiesAreNotEvicted(t *testing.T) {
	rc := &robotsCache{maxEntries: 2, maxBytes: 1 << 20}
	release := rc.hold("http://busy")
	rc.put("http://busy", robotsEntry{body: make([]byte, 10), fetched: time.Now()})
	for i := range 5 {
		rc.put(fmt.Sprintf("http://h%d", i), robotsEntry{fetched: time.Now()})
	}
	if _, ok := rc.peek("http://busy"); !ok {
		t.Fatal("a held copy was evicted")
	}
	if rc.lru.Len() != 2 {
		t.Errorf("%d copies kept, want the held one and the newest", rc.lru.Len())
	}
	release()
	rc.put("http://h5", robotsEntry{fetched: time.Now()})
	rc.put("http://h6", robotsEntry{fetched: time.Now()})
	if _, ok := rc.peek("http://busy"); ok {
		t.Error("a released copy was kept past the bounds")
	}
	if len(rc.held) != 0 {
		t.Errorf("held = %v after release", rc.held)
	}
}
