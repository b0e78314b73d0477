package harvest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// plainSite serves documents with neither ETag nor Last-Modified, as many
// static hosts do, so that every fetch is a full 200.
type plainSite struct {
	*httptest.Server
	mu   sync.Mutex
	docs map[string]string
}

func newPlainSite(t *testing.T) *plainSite {
	s := &plainSite{docs: map[string]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body, ok := s.docs[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		w.Write([]byte(strings.ReplaceAll(body, "BASE", s.URL)))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *plainSite) set(path, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = body
}

const plainHead = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`

// TestUnchangedBodyWithoutValidatorsIsNotParsedAgain checks that a change
// list served again byte for byte, by a server that sends no validators,
// is recognised by its digest: the harvest does not read it again (its
// parse warning is not repeated), and a changed list is read as usual.
func TestUnchangedBodyWithoutValidatorsIsNotParsedAgain(t *testing.T) {
	site := newPlainSite(t)
	site.set("/.well-known/resourcesync", plainHead+`<rs:md capability="description"/>
<url><loc>BASE/cap.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="BASE/"/></url>
</urlset>`)
	site.set("/cap.xml", plainHead+`<rs:ln rel="up" href="BASE/.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>BASE/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`)
	at := func(d time.Duration) string { return time.Now().Add(-d).UTC().Format(time.RFC3339) }
	list := plainHead + `<rs:md capability="changelist"/>
<url><loc>BASE/a.html</loc><rs:md change="updated" datetime="` + at(2*time.Hour) + `"/></url>
<url><loc>BASE/undated.html</loc><rs:md change="updated"/></url>
`
	site.set("/changes.xml", list+"</urlset>")
	store, h := testHarvester(t, Options{})

	first := followURL(t, h, site.URL+"/")
	if got := first.Changes(); got != 1 {
		t.Fatalf("first harvest: %d new changes, want 1", got)
	}
	if !hasWarning(first, "undated.html") {
		t.Fatalf("first harvest did not warn about the undated entry: %+v", first.Collections)
	}

	again := harvestURL(t, store, h, site.URL+"/")
	if got := again.Changes(); got != 0 {
		t.Errorf("unchanged harvest: %d new changes, want 0", got)
	}
	if hasWarning(again, "undated.html") {
		t.Errorf("the unchanged change list was parsed again: %+v", again.Collections)
	}

	site.set("/changes.xml", list+`<url><loc>BASE/b.html</loc><rs:md change="created" datetime="`+at(time.Minute)+`"/></url>
</urlset>`)
	changed := harvestURL(t, store, h, site.URL+"/")
	if got := changed.Changes(); got != 1 {
		t.Errorf("after the list changed: %d new changes, want 1", got)
	}
	if !hasWarning(changed, "undated.html") {
		t.Errorf("the changed change list was not parsed: %+v", changed.Collections)
	}
}

func hasWarning(r *SiteReport, part string) bool {
	for _, c := range r.Collections {
		for _, w := range c.Run.Warnings {
			if strings.Contains(w, part) {
				return true
			}
		}
	}
	return false
}
