package web

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/internal/fixturesite"
	"tidings/internal/pgtest"
)

// TestDatabaseOutageOnSQLite: while the store cannot answer (here closed
// under the server, as at a shutdown), a feed the cache holds is served
// as it was, and every other feed and page answers 503 with Retry-After,
// not a 500.
func TestDatabaseOutageOnSQLite(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	checkOutage(t, fx, func() {
		if err := fx.store.Close(); err != nil {
			t.Fatal(err)
		}
	}, nil)
}

// TestDatabaseOutageOnPostgreSQL: the same when the PostgreSQL server
// goes away (every connection reset, new ones refused), and the answers
// are whole again once it is back.
func TestDatabaseOutageOnPostgreSQL(t *testing.T) {
	t.Parallel()
	target, p := pgtest.Through(t, pgtest.NewDatabase(t))

	site := fixturesite.New(time.Now().UTC().Truncate(time.Second))
	t.Cleanup(site.Close)
	fx := &fixture{site: site, path: target}
	fx.open(t)
	if _, err := fx.harvester().Follow(t.Context(), site.URL); err != nil {
		t.Fatalf("follow the fixture site: %v", err)
	}
	checkOutage(t, fx, p.Cut, p.Restore)
}

// checkOutage serves fx's feeds and pages, calls cut to make the database
// unavailable, and checks what readers and people are answered; then,
// with restore, that the answers are whole again once it is back.
func checkOutage(t *testing.T, fx *fixture, cut, restore func()) {
	s, err := New(fx.store, Options{BaseURL: testBase})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	session := signIn(t, fx.store, "ann")
	cached := []string{public(t, fx.store, "/feeds/1.atom"), public(t, fx.store, "/sites/1.atom?entries=page")}
	uncached := []string{public(t, fx.store, "/feeds/1.rss"), public(t, fx.store, "/feeds/2.json")}
	pages := []string{public(t, fx.store, "/site/1"), public(t, fx.store, "/collection/2")}
	before := map[string]*bytes.Buffer{}
	for _, p := range cached {
		rec := serveOnce(t, h, p, "")
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s before the outage: %d", p, rec.Code)
		}
		before[p] = rec.Body
	}

	cut()
	// Until the store's generation is next polled, the cache answers as
	// it does between two writes.
	time.Sleep(2 * db.OtherWritersDelay)
	for _, p := range cached {
		rec := serveOnce(t, h, p, "")
		if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), before[p].Bytes()) {
			t.Errorf("GET %s during the outage: %d, want the cached copy:\n%s", p, rec.Code, rec.Body)
		}
		// The reader is asked back soon, not at the next harvest.
		if cc := rec.Header().Get("Cache-Control"); cc != "public, max-age=60" {
			t.Errorf("GET %s during the outage: Cache-Control %q", p, cc)
		}
		etag := rec.Header().Get("ETag")
		req, _ := http.NewRequest(http.MethodGet, p, nil)
		req.Header.Set("If-None-Match", etag)
		if rec := serveRequest(h, req); rec.Code != http.StatusNotModified {
			t.Errorf("GET %s with its ETag during the outage: %d, want 304", p, rec.Code)
		}
	}
	for _, p := range uncached {
		rec := serveOnce(t, h, p, "")
		unavailable(t, "GET "+p, rec, false)
	}
	for _, p := range pages {
		for _, who := range []string{"", session} {
			rec := serveOnce(t, h, p, who)
			unavailable(t, "GET "+p, rec, true)
		}
	}
	if restore == nil {
		return
	}

	restore()
	// The pools find their connections dead and make new ones.
	deadline := time.Now().Add(15 * time.Second)
	for _, p := range append(uncached, pages...) {
		for {
			rec := serveOnce(t, h, p, session)
			if rec.Code == http.StatusOK {
				break
			}
			if rec.Code != http.StatusServiceUnavailable || time.Now().After(deadline) {
				t.Fatalf("GET %s once the database is back: %d\n%s", p, rec.Code, rec.Body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// unavailable checks an answer of 503: when to come back, and a sentence
// saying why, in a page of tidings or in plain text.
func unavailable(t *testing.T, what string, rec *httptest.ResponseRecorder, page bool) {
	t.Helper()
	resp := rec.Result()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "60" {
		t.Errorf("%s during the outage: %d, Retry-After %q; want 503 and 60\n%s", what, resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if !strings.Contains(string(body), "cannot reach its database just now") {
		t.Errorf("%s during the outage does not say why:\n%s", what, body)
	}
	if html := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html"); html != page {
		t.Errorf("%s during the outage: Content-Type %q", what, resp.Header.Get("Content-Type"))
	}
	if page && !strings.Contains(string(body), "<h1>Not available just now</h1>") {
		t.Errorf("%s during the outage is not tidings' error page:\n%s", what, body)
	}
}

// serveRequest runs one prepared request through h.
func serveRequest(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
