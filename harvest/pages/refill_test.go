package pages

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/source"
)

// etagSite serves pages with content-hash ETags, a home page linking the
// paths given (whether they are there or not, as a stale menu does), and
// 404 for pages that are not there.
type etagSite struct {
	*httptest.Server
	mu    sync.Mutex
	links []string
	pages map[string]string // path → text
}

func newETagSite(t *testing.T) *etagSite {
	s := &etagSite{pages: map[string]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		var body string
		if r.URL.Path == "/" {
			var b strings.Builder
			b.WriteString("<title>Home</title><p>The home page.</p>")
			for _, p := range s.links {
				fmt.Fprintf(&b, `<a href="%s">%s</a> `, p, p)
			}
			body = b.String()
		} else if text, ok := s.pages[r.URL.Path]; ok {
			body = "<title>" + r.URL.Path + "</title><p>" + text + "</p>"
		}
		s.mu.Unlock()
		if body == "" {
			http.NotFound(w, r)
			return
		}
		sum := sha256.Sum256([]byte(body))
		tag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *etagSite) set(path, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if text == "" {
		delete(s.pages, path)
	} else {
		s.pages[path] = text
	}
}

// TestWatchedCapRefills: a 30-page site watched 20 pages at most; two of
// them go: the deletions are recorded and the freed places go to pages
// not watched yet, although the home page that links them answers 304.
func TestWatchedCapRefills(t *testing.T) {
	site := newETagSite(t)
	for i := range 30 {
		p := fmt.Sprintf("/p%02d.html", i)
		site.links = append(site.links, p)
		site.set(p, fmt.Sprintf("Page %d.", i))
	}
	store, h := harvesttest.New(t, harvest.Options{Sources: source.SettingsSet{Name: &Settings{WatchPages: 20}}})
	rep := harvesttest.Follow(t, h, site.URL+"/")
	col := rep.Collections[0].Collection
	watched := func() map[string]bool {
		list, err := store.WatchedPages(t.Context(), col.ID)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, w := range list {
			out[strings.TrimPrefix(w.URL, site.URL)] = true
		}
		return out
	}
	first := watched()
	if len(first) != 20 {
		t.Fatalf("%d pages watched, want 20", len(first))
	}
	var gone []string
	for p := range first {
		if p != "/" && len(gone) < 2 {
			gone = append(gone, p)
			site.set(p, "")
		}
	}
	// The home page does not change: it answers 304, and only a read of
	// it whole offers its links again.
	for range 3 {
		harvesttest.HarvestSite(t, store, h, site.URL+"/")
	}
	now := watched()
	if len(now) != 20 {
		t.Errorf("%d pages watched after two went, want 20 again", len(now))
	}
	for _, p := range gone {
		if now[p] {
			t.Errorf("%s is still watched", p)
		}
	}
	var deleted int
	store.ExportChanges(t.Context(), db.ExportFilter{}, func(c db.ExportedChange) error {
		if c.Kind == "deleted" {
			deleted++
		}
		return nil
	})
	if deleted != 2 {
		t.Errorf("%d deletions recorded, want 2", deleted)
	}
}
