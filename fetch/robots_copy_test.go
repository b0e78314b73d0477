package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRobotsCopyGoesOutAndComesBack: what Robots returns, given to another
// client by SeedRobots, is trusted for its day without a request, judges
// that client's fetches, and loses to a copy read later.
func TestRobotsCopyGoesOutAndComesBack(t *testing.T) {
	var robotsHits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsHits.Add(1)
			w.Header().Set("ETag", `"r1"`)
			w.Write([]byte("User-agent: *\nDisallow: /private/\nSitemap: /sitemap.xml\n"))
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	ctx := context.Background()
	first := NewClient(ClientOptions{AllowPrivate: true})
	if _, ok := first.KeptRobots(srv.URL + "/"); ok {
		t.Fatal("a new client keeps a robots.txt already")
	}
	got, err := first.Robots(ctx, srv.URL+"/some/page")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != http.StatusOK || got.URL != srv.URL+"/robots.txt" || got.ETag != `"r1"` ||
		!strings.Contains(string(got.Body), "Sitemap: /sitemap.xml") || got.FetchedAt.IsZero() {
		t.Fatalf("Robots = %+v", got)
	}
	if kept, ok := first.KeptRobots(srv.URL + "/other"); !ok || kept.ETag != got.ETag || !kept.FetchedAt.Equal(got.FetchedAt) {
		t.Errorf("KeptRobots = %+v, %v; want what Robots returned", kept, ok)
	}
	if u, ok := RobotsURL(srv.URL + "/a/b?c"); !ok || u != srv.URL+"/robots.txt" {
		t.Errorf("RobotsURL = %q, %v", u, ok)
	}

	second := NewClient(ClientOptions{AllowPrivate: true})
	second.SeedRobots(srv.URL+"/", got)
	if _, err := second.Get(ctx, srv.URL+"/private/x", Conditional{}); err == nil || !strings.Contains(err.Error(), "disallowed") {
		t.Errorf("the seeded copy did not judge the fetch: %v", err)
	}
	if n := robotsHits.Load(); n != 1 {
		t.Errorf("robots.txt was read %d times; the seeded copy should have been trusted", n)
	}
	older := got
	older.Body, older.FetchedAt = []byte("User-agent: *\nDisallow: /\n"), got.FetchedAt.Add(-time.Hour)
	second.SeedRobots(srv.URL+"/", older)
	if _, err := second.Get(ctx, srv.URL+"/public", Conditional{}); err != nil {
		t.Errorf("an older copy replaced the newer one: %v", err)
	}

	stale := got
	stale.FetchedAt = time.Now().Add(-25 * time.Hour)
	third := NewClient(ClientOptions{AllowPrivate: true})
	third.SeedRobots(srv.URL+"/", stale)
	if _, err := third.Robots(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if n := robotsHits.Load(); n != 2 {
		t.Errorf("robots.txt was read %d times in all; a copy a day old should be read again", n)
	}
}

func TestGoneAndTransient(t *testing.T) {
	refused := &FetchError{URL: "http://10.0.0.1/", Reason: "was refused", Err: &AddressError{Address: "10.0.0.1", Kind: "a private address"}}
	for _, tt := range []struct {
		name            string
		err             error
		gone, transient bool
	}{
		{"404", &FetchError{Status: http.StatusNotFound}, true, false},
		{"410", &FetchError{Status: http.StatusGone}, true, false},
		{"403", &FetchError{Status: http.StatusForbidden}, false, false},
		{"429", &FetchError{Status: http.StatusTooManyRequests}, false, true},
		{"503", &FetchError{Status: http.StatusServiceUnavailable}, false, true},
		{"no answer", &FetchError{Reason: "did not answer in time"}, false, true},
		{"refused address", refused, false, false},
	} {
		if got := Gone(tt.err); got != tt.gone {
			t.Errorf("%s: Gone = %v", tt.name, got)
		}
		if got := Transient(tt.err); got != tt.transient {
			t.Errorf("%s: Transient = %v", tt.name, got)
		}
	}
}
