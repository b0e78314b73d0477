package arc_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/harvest/arc"
	"tidings/internal/harvesttest"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
)

// arcSite is a loopback site publishing ARC documents. It answers
// conditional requests by ETag and logs every request with its answer.
type arcSite struct {
	*httptest.Server
	mu   sync.Mutex
	docs map[string]arcDoc
	log  []arcRequest
}

type arcDoc struct{ contentType, body string }

type arcRequest struct {
	Path        string
	Status      int
	Conditional bool
}

func newARCSite(t *testing.T) *arcSite {
	s := &arcSite{docs: map[string]arcDoc{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Set publishes body at path; "{{base}}" in it becomes the site's URL.
func (s *arcSite) Set(path, contentType, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = arcDoc{contentType, strings.ReplaceAll(body, "{{base}}", s.URL)}
}

func (s *arcSite) Remove(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.docs, path)
}

func (s *arcSite) Log() []arcRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]arcRequest(nil), s.log...)
}

// Requests returns the answers given to path, in order.
func (s *arcSite) Requests(path string) []int {
	var out []int
	for _, r := range s.Log() {
		if r.Path == path {
			out = append(out, r.Status)
		}
	}
	return out
}

func (s *arcSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	doc, ok := s.docs[r.URL.Path]
	status := http.StatusOK
	etag := fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(doc.body)))
	switch {
	case !ok:
		status = http.StatusNotFound
	case r.Header.Get("If-None-Match") == etag:
		status = http.StatusNotModified
	}
	s.log = append(s.log, arcRequest{r.URL.Path, status, r.Header.Get("If-None-Match") != ""})
	s.mu.Unlock()
	if status == http.StatusNotFound {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("ETag", etag)
	if status == http.StatusNotModified {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", doc.contentType)
	fmt.Fprint(w, doc.body)
}

// page is one entry of a generated ARC sitemap.
type page map[string]any

// sitemapJSON writes an ARC sitemap; page URLs starting with "/" are made
// absolute on the site.
func (s *arcSite) sitemapJSON(generated time.Time, rate string, pages ...page) string {
	doc := map[string]any{
		"arc_sitemap_version": "2.1",
		"site":                s.URL,
		"generated_at":        generated.UTC().Format(time.RFC3339),
		"pages":               pages,
	}
	if rate != "" {
		doc["crawl_rate"] = rate
	}
	for _, p := range pages {
		if u, ok := p["url"].(string); ok && strings.HasPrefix(u, "/") {
			p["url"] = s.URL + u
		}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b)
}

// clock is a settable fake clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// arcEnv is a harvester with a fake clock, over a fresh database.
type arcEnv struct {
	t      *testing.T
	site   *arcSite
	clock  *clock
	client *fetch.Client
	store  *db.DB
	target string // the database's --db value
	h      *harvest.Harvester
}

// newARCEnv builds an arcEnv at now; each of with may change the client's
// options (a fake pacing clock).
func newARCEnv(t *testing.T, now time.Time, with ...func(*fetch.ClientOptions)) *arcEnv {
	t.Helper()
	target := harvesttest.Target(t)
	store, err := db.Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	c := &clock{t: now}
	o := fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true}
	for _, w := range with {
		w(&o)
	}
	client := fetch.NewClient(o)
	return &arcEnv{t: t, site: newARCSite(t), clock: c, client: client, store: store, target: target,
		// The ARC fixture serves no pages, and these tests count requests:
		// page snapshots are tested apart.
		h: harvest.New(client, store, harvest.Options{Now: c.Now, Snapshots: harvest.SnapshotSettings{Off: true}})}
}

func (e *arcEnv) follow(path string) *harvest.SiteReport {
	e.t.Helper()
	rep, err := e.h.Follow(context.Background(), e.site.URL+path)
	if err != nil {
		e.t.Fatalf("follow: %v", err)
	}
	return rep
}

func (e *arcEnv) harvest() *harvest.SiteReport {
	e.t.Helper()
	site, err := e.store.SiteByURL(context.Background(), e.site.URL+"/")
	if err != nil {
		e.t.Fatal(err)
	}
	rep, err := e.h.HarvestSite(context.Background(), site)
	if err != nil {
		e.t.Fatalf("harvest: %v", err)
	}
	return rep
}

// arcRun returns the report of the site's one ARC collection.
func arcRun(t *testing.T, rep *harvest.SiteReport) harvest.CollectionReport {
	t.Helper()
	for _, c := range rep.Collections {
		if c.Collection.Protocol == arc.Name {
			return c
		}
	}
	t.Fatalf("no ARC collection in the report (site run: %+v)", rep.Run)
	return harvest.CollectionReport{}
}

// changes returns every stored change, history included, oldest first.
func (e *arcEnv) changes() []db.ExportedChange {
	e.t.Helper()
	var out []db.ExportedChange
	err := e.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		out = append(out, c)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// changeLines lists the stored changes as "kind path time", oldest first.
func (e *arcEnv) changeLines() []string {
	var out []string
	for _, c := range e.changes() {
		out = append(out, fmt.Sprintf("%s %s %s", c.Kind, strings.TrimPrefix(c.URL, e.site.URL), c.Datetime.Format(time.RFC3339)))
	}
	return out
}

func (e *arcEnv) pages(collectionID int64) map[string]db.Page {
	e.t.Helper()
	ps, err := e.store.Pages(context.Background(), collectionID)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]db.Page{}
	for u, p := range ps {
		out[strings.TrimPrefix(u, e.site.URL)] = p
	}
	return out
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
