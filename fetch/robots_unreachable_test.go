package fetch

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestUnreachableRobotsIsAskedOnce: a host that refuses connections is
// asked for its robots.txt once, not before each request; once the host
// answers again, its robots.txt is read before the next request and
// obeyed.
func TestUnreachableRobotsIsAskedOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: connections are refused
	var mu sync.Mutex
	asked := map[string]int{}
	ctx := WithObserver(context.Background(), func(f Fetched) {
		mu.Lock()
		defer mu.Unlock()
		asked[strings.TrimPrefix(f.URL, "http://"+addr)]++
	})
	c := NewClient(ClientOptions{AllowPrivate: true})
	for _, path := range []string{"/a", "/b", "/c"} {
		if _, err := c.Get(ctx, "http://"+addr+path, Conditional{}); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("GET %s of a host that refuses connections: %v", path, err)
		}
	}
	if _, err := c.Robots(ctx, "http://"+addr+"/"); err == nil {
		t.Error("Robots of a host that refuses connections gave no error")
	}
	if _, ok := c.KeptRobots("http://" + addr + "/"); ok {
		t.Error("KeptRobots has a copy of a robots.txt that never answered")
	}
	mu.Lock()
	if asked["/robots.txt"] != 1 || asked["/a"] != 1 || asked["/b"] != 1 || asked["/c"] != 1 {
		t.Errorf("requests made: %v, want each document once and robots.txt once", asked)
	}
	mu.Unlock()

	// The host comes back, forbidding /private/.
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	var robotsHits atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsHits.Add(1)
			w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
			return
		}
		w.Write([]byte("ok"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	if _, err := c.Get(ctx, "http://"+addr+"/d", Conditional{}); err != nil {
		t.Fatalf("GET /d once the host is back: %v", err)
	}
	if _, err := c.Get(ctx, "http://"+addr+"/private/e", Conditional{}); err == nil || !strings.Contains(err.Error(), "disallowed") {
		t.Errorf("GET /private/e once the host is back: %v, want it disallowed by robots.txt", err)
	}
	if n := robotsHits.Load(); n != 1 {
		t.Errorf("robots.txt read %d times once the host was back, want 1", n)
	}
}

// TestRobotsNotRememberedWhenTheCallerGaveUp: a robots.txt request that
// ended because its caller's context did is no news of the host.
func TestRobotsNotRememberedWhenTheCallerGaveUp(t *testing.T) {
	var hits atomic.Int32
	srv := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			hits.Add(1)
		}
	}))
	c := NewClient(ClientOptions{AllowPrivate: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.Get(ctx, srv+"/a", Conditional{})
	if _, err := c.Get(context.Background(), srv+"/b", Conditional{}); err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("robots.txt read %d times, want once: a cancelled request must not count as the host not answering", n)
	}
}

func newLoopbackServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}
