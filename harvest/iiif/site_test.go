package iiif

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/source"
)

// Content types real streams are served with: the spec's, plain JSON,
// and what a misconfigured static host sends.
const (
	ldType    = `application/ld+json;profile="http://iiif.io/api/discovery/1/context.json"`
	jsonType  = "application/json"
	plainType = "text/plain; charset=utf-8"
	htmlType  = "text/html; charset=utf-8"
)

// streamSite serves a museum's documents on loopback; "BASE" in a
// document becomes the site's URL. It counts the requests of each path.
type streamSite struct {
	*httptest.Server
	mu    sync.Mutex
	docs  map[string][2]string // path -> content type, body
	asked map[string]int
}

func newStreamSite(t *testing.T) *streamSite {
	s := &streamSite{docs: map[string][2]string{}, asked: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		d, ok := s.docs[r.URL.Path]
		s.asked[r.URL.Path]++
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d[0])
		fmt.Fprint(w, strings.ReplaceAll(d[1], "BASE", s.URL))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *streamSite) set(path, ctype, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = [2]string{ctype, body}
}

func (s *streamSite) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[path]
}

// collectionDoc is an OrderedCollection whose last page is last.
func collectionDoc(last string) string {
	return `{"@context": "http://iiif.io/api/discovery/1/context.json", "id": "BASE/activity/all-changes",
 "type": "OrderedCollection", "first": {"id": "BASE/activity/page-0", "type": "OrderedCollectionPage"},
 "last": {"id": "BASE` + last + `", "type": "OrderedCollectionPage"}}`
}

// pageDoc is a page of activities, oldest first; prev "" for the first.
func pageDoc(id, prev string, items ...string) string {
	p := ""
	if prev != "" {
		p = `"prev": {"id": "BASE` + prev + `", "type": "OrderedCollectionPage"},`
	}
	return `{"@context": "http://iiif.io/api/discovery/1/context.json", "id": "BASE` + id + `", "type": "OrderedCollectionPage",
 "partOf": {"id": "BASE/activity/all-changes", "type": "OrderedCollection"}, ` + p + `
 "orderedItems": [` + strings.Join(items, ",\n") + `]}`
}

// act is one activity on a Manifest at at; extra adds members (a label,
// a target, an origin).
func act(typ, manifest string, at time.Time, extra ...string) string {
	obj := `{"id": "BASE/iiif/` + manifest + `/manifest", "type": "Manifest"`
	rest := ""
	for _, e := range extra {
		if strings.HasPrefix(e, `"label"`) {
			obj += ", " + e
		} else {
			rest += ", " + e
		}
	}
	return `{"type": "` + typ + `", "object": ` + obj + `}, "endTime": "` + at.UTC().Format(time.RFC3339) + `"` + rest + `}`
}

func refresh(at time.Time) string {
	return `{"type": "Refresh", "summary": "System refresh initiated", "startTime": "` + at.UTC().Format(time.RFC3339) + `"}`
}

// env is a harvester over a fresh store, following a stream site.
type env struct {
	t     *testing.T
	site  *streamSite
	store *db.DB
	h     *harvest.Harvester
}

func newEnv(t *testing.T, o harvest.Options) *env {
	site := newStreamSite(t)
	if o.Snapshots == (harvest.SnapshotSettings{}) {
		o.Snapshots = harvest.SnapshotSettings{Off: true, PageFetches: harvest.DefaultPageFetches}
	}
	if o.Sources == nil {
		o.Sources = source.SettingsSet{Name: &Settings{Language: "en"}}
	}
	store, h := harvesttest.New(t, o)
	return &env{t: t, site: site, store: store, h: h}
}

func (e *env) follow(path string) *harvest.SiteReport {
	e.t.Helper()
	return harvesttest.Follow(e.t, e.h, e.site.URL+path)
}

func (e *env) harvest() *harvest.SiteReport {
	e.t.Helper()
	return harvesttest.HarvestSite(e.t, e.store, e.h, e.site.URL+"/")
}

// row is a change as `tidings export changes` gives it, without the
// site's address.
type row struct{ url, kind, title, summary string }

// rows reads every stored change (history too) of the stream.
func (e *env) rows() []row {
	e.t.Helper()
	var out []row
	err := e.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		out = append(out, row{strings.TrimPrefix(c.URL, e.site.URL), c.Kind, c.Title, c.Summary})
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// collection is the stored stream collection.
func (e *env) collection() db.Collection {
	e.t.Helper()
	cols, err := e.store.Collections(context.Background(), db.CollectionFilter{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, c := range cols {
		if c.Protocol == Name {
			return c
		}
	}
	e.t.Fatalf("no IIIF collection stored among %d", len(cols))
	return db.Collection{}
}
