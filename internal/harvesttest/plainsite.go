package harvesttest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// PlainSite serves documents with neither ETag nor Last-Modified, as many
// static hosts do, so that every fetch is a full 200. "BASE" in a
// document becomes the site's URL.
type PlainSite struct {
	*httptest.Server
	mu   sync.Mutex
	docs map[string]string
}

// NewPlainSite starts a PlainSite that serves nothing yet.
func NewPlainSite(t testing.TB) *PlainSite {
	s := &PlainSite{docs: map[string]string{}}
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

// Set serves body at path.
func (s *PlainSite) Set(path, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = body
}

// PlainHead opens a ResourceSync <urlset>.
const PlainHead = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`

// NewChangeListSite serves a one-collection ResourceSync site whose
// change list, at /changes.xml, the test sets.
func NewChangeListSite(t testing.TB) *PlainSite {
	site := NewPlainSite(t)
	site.Set("/.well-known/resourcesync", PlainHead+`<rs:md capability="description"/>
<url><loc>BASE/cap.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="BASE/"/></url>
</urlset>`)
	site.Set("/cap.xml", PlainHead+`<rs:ln rel="up" href="BASE/.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>BASE/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`)
	return site
}
