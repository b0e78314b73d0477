// Package checksite serves, on loopback, the sites the tests of a site
// check look at: one published as IFCC-0001 asks, and one with every
// problem a check names (ResourceSync, SCP and ARC). Dates are relative
// to the time given.
package checksite

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Site is a running site. Close it when done.
type Site struct {
	*httptest.Server
	mu   sync.Mutex
	docs map[string]string
}

// Serve starts a site serving docs by path; "{{base}}" in them becomes
// the site's URL. Paths ending in .html or / are served as HTML, .json as JSON,
// .scp as JSON Lines, the rest as XML; others answer 404.
func Serve(docs map[string]string) *Site {
	s := &Site{docs: map[string]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	for p, d := range docs {
		s.docs[p] = strings.ReplaceAll(d, "{{base}}", s.URL)
	}
	return s
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, ok := s.docs[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, ".html"), strings.HasSuffix(r.URL.Path, "/"):
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	case strings.HasSuffix(r.URL.Path, ".json"):
		w.Header().Set("Content-Type", "application/json")
	case strings.HasSuffix(r.URL.Path, ".scp"):
		w.Header().Set("Content-Type", "application/x-ndjson")
	default:
		w.Header().Set("Content-Type", "application/xml")
	}
	fmt.Fprint(w, body)
}

const head = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`

func date(now time.Time, d time.Duration) string { return now.Add(d).UTC().Format(time.RFC3339) }

// Good is a site published as IFCC-0001 asks: a Source Description, a
// capability list and a change list of three changes (one of them older
// than a month), and the pages they name.
func Good(now time.Time) map[string]string {
	return map[string]string{
		"/.well-known/resourcesync": head + `  <rs:md capability="description"/>
  <url><loc>{{base}}/shrine/caps.xml</loc><rs:md capability="capabilitylist"/>
    <rs:ln rel="describes" href="{{base}}/shrine/"/></url>
</urlset>`,
		"/shrine/caps.xml": head + `  <rs:ln rel="up" href="{{base}}/.well-known/resourcesync"/>
  <rs:ln rel="describes" href="{{base}}/shrine/"/>
  <rs:md capability="capabilitylist"/>
  <url><loc>{{base}}/shrine/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`,
		"/shrine/changes.xml": head + `  <rs:ln rel="up" href="{{base}}/shrine/caps.xml"/>
  <rs:md capability="changelist" from="2020-01-01"/>
  <url><loc>{{base}}/shrine/a.html</loc><rs:md change="created" datetime="` + date(now, -48*time.Hour) + `"/></url>
  <url><loc>{{base}}/shrine/b.html</loc><rs:md change="updated" datetime="` + date(now, -24*time.Hour) + `"/></url>
  <url><loc>{{base}}/shrine/old.html</loc><rs:md change="updated" datetime="` + date(now, -90*24*time.Hour) + `"/></url>
</urlset>`,
		"/shrine/a.html":   `<html><head><title>Page A</title></head><body><p>All about a.</p></body></html>`,
		"/shrine/b.html":   `<html><head><title>Page B</title></head><body><p>Bees &amp; more.</p></body></html>`,
		"/shrine/old.html": `<html><head><title>Old</title></head><body><p>Long ago.</p></body></html>`,
	}
}

// Bad is a site with every problem a check names: a Source Description
// entry and a capability list without describes, a capability list and a
// change list without up, a change list entry without datetime (dated by
// its lastmod), one with the unknown change "renamed", one dated three
// days after now, one without change, an SCP snapshot whose line 2 is not JSON, and an ARC
// sitemap whose line 4 is not JSON. Its ResourceSync collection can still
// be followed.
func Bad(now time.Time) map[string]string {
	return map[string]string{
		"/.well-known/resourcesync": head + `  <rs:md capability="description"/>
  <url><loc>{{base}}/shrine/caps.xml</loc><rs:md capability="capabilitylist"/></url>
</urlset>`,
		"/shrine/caps.xml": head + `  <rs:md capability="capabilitylist"/>
  <url><loc>{{base}}/shrine/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`,
		"/shrine/changes.xml": head + `  <rs:md capability="changelist" from="2020-01-01"/>
  <url><loc>{{base}}/shrine/a.html</loc><rs:md change="created" datetime="` + date(now, -48*time.Hour) + `"/></url>
  <url><loc>{{base}}/shrine/b.html</loc><lastmod>` + date(now, -24*time.Hour) + `</lastmod><rs:md change="updated"/></url>
  <url><loc>{{base}}/shrine/c.html</loc><rs:md change="renamed" datetime="` + date(now, -24*time.Hour) + `"/></url>
  <url><loc>{{base}}/shrine/d.html</loc><rs:md change="updated" datetime="` + date(now, 72*time.Hour) + `"/></url>
  <url><loc>{{base}}/shrine/e.html</loc><rs:md datetime="` + date(now, -time.Hour) + `"/></url>
</urlset>`,
		"/sitemap.xml": `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:scp="https://scp-protocol.org/schemas/sitemap/1.0">
<scp:version>0.1</scp:version>
<scp:section name="blog" updateFreq="daily" pages="~2"/>
<scp:collection section="blog" type="snapshot" url="{{base}}/scp/blog.scp" generated="` + date(now, -time.Hour) + `"/>
</urlset>`,
		"/scp/blog.scp": `{"url": "{{base}}/blog/a.html", "title": "A", "description": "About A", "modified": "` + date(now, -2*time.Hour) + `", "language": "en", "content": []}
{"url": "{{base}}/blog/b.html", "title": 
`,
		"/.well-known/arc-sitemap.json": "{\n  \"arc_sitemap_version\": \"2.1\",\n  \"pages\": [\n    {\"url\": \"x\",}\n  ]\n}\n",
	}
}
