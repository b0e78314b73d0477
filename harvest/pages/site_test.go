package pages

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// watchSite is a site that publishes nothing but its pages: no
// ResourceSync, no sitemap. It answers with ETags and counts requests.
type watchSite struct {
	srv   *httptest.Server
	mu    sync.Mutex
	pages map[string]string // path → HTML; a missing path answers 404
	moved map[string]string // path → where it redirects
	codes map[string]int    // path → the status it answers with, no page
	hits  map[string]int
	log   []string // path and query of every request, in order
	// bare: the server sends no validators, so every read is whole.
	bare bool
	// fill, when set, writes each answer's body anew: a widget that
	// changes at every read. n counts the requests so far.
	fill func(body string, n int) string
	// soft, when set, answers an address the site does not have with 200
	// and the page it writes (a "soft 404"), n counting the requests.
	soft func(n int) string
}

func newWatchSite(t testing.TB) *watchSite {
	t.Helper()
	s := &watchSite{pages: map[string]string{}, moved: map[string]string{}, codes: map[string]int{}, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *watchSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits[r.URL.Path]++
	s.log = append(s.log, r.URL.RequestURI())
	if code, ok := s.codes[r.URL.Path]; ok {
		w.WriteHeader(code)
		return
	}
	if to, ok := s.moved[r.URL.Path]; ok {
		http.Redirect(w, r, to, http.StatusFound)
		return
	}
	body, ok := s.pages[r.URL.Path]
	if !ok && s.soft != nil {
		body, ok = s.soft(len(s.log)), true
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	if s.fill != nil {
		body = s.fill(body, len(s.log))
	}
	etag := fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(body)))
	if !s.bare {
		w.Header().Set("ETag", etag)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !s.bare && r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write([]byte(body))
}

func (s *watchSite) set(path, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = body
}

func (s *watchSite) remove(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pages, path)
}

func (s *watchSite) hit(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *watchSite) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// watchEnv is a harvester over a fresh database whose client records
// every connection it attempts.
type watchEnv struct {
	t     testing.TB
	site  *watchSite
	store *db.DB
	h     *harvest.Harvester
	mu    sync.Mutex
	dials []string
}

func newWatchEnv(t testing.TB, o harvest.Options) *watchEnv {
	t.Helper()
	e := &watchEnv{t: t, site: newWatchSite(t)}
	store, err := db.Open(context.Background(), harvesttest.Target(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true,
		DialHook: func(_, address string) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.dials = append(e.dials, address)
		}})
	e.store, e.h = store, harvest.New(client, store, o)
	return e
}

func (e *watchEnv) follow(path string) *harvest.SiteReport {
	e.t.Helper()
	rep, err := e.h.Follow(context.Background(), e.site.srv.URL+path)
	if err != nil {
		e.t.Fatalf("follow: %v", err)
	}
	return rep
}

func (e *watchEnv) harvest() *harvest.SiteReport {
	e.t.Helper()
	site, err := e.store.SiteByURL(context.Background(), e.site.srv.URL+"/")
	if err != nil {
		e.t.Fatal(err)
	}
	rep, err := e.h.HarvestSite(context.Background(), site)
	if err != nil {
		e.t.Fatalf("harvest: %v", err)
	}
	return rep
}

// changes lists the stored changes as "kind path", sorted; history is
// marked "(seen)".
func (e *watchEnv) changes() []string {
	e.t.Helper()
	var out []string
	err := e.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		s := c.Kind + " " + strings.TrimPrefix(c.URL, e.site.srv.URL)
		if c.History {
			s += " (seen)"
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func (e *watchEnv) exported(path, kind string) db.ExportedChange {
	e.t.Helper()
	var found db.ExportedChange
	e.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		if c.URL == e.site.srv.URL+path && c.Kind == kind {
			found = c
		}
		return nil
	})
	return found
}

// watched lists the watched pages' paths, sorted.
func (e *watchEnv) watched() []string {
	e.t.Helper()
	cols, err := e.store.Collections(context.Background(), db.CollectionFilter{})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, c := range cols {
		if c.Protocol != Name {
			continue
		}
		list, err := e.store.WatchedPages(context.Background(), c.ID)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, w := range list {
			out = append(out, strings.TrimPrefix(w.URL, e.site.srv.URL))
		}
	}
	sort.Strings(out)
	return out
}

func equalLists(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
