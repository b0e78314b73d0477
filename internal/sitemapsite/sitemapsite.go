// Package sitemapsite serves a static site the way site generators build
// them (Jekyll, Hugo, MkDocs): HTML pages with a navigation listing every
// page and a "© YEAR" footer, and a plain sitemap, optionally gzip and
// with every lastmod stamped with the build time. Tests switch it from
// one version to the next. Everything is made by the tests: no fixture
// file.
package sitemapsite

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
)

// Page is one page of the site.
type Page struct {
	Title string
	Text  string // the main text, one paragraph per line
	// Aside, when set, is markup written as it is after the main text,
	// inside the article: a banner, a widget.
	Aside string
	// Status, when set, is answered instead of the page (404, 410, 500).
	Status int
	// Redirect, when set, answers 302 to it.
	Redirect string
	// Unlisted pages are served but left out of the sitemap.
	Unlisted bool
	// Lastmod is the page's <lastmod>, "" for none (the build stamp, when
	// set, overrides it).
	Lastmod string
}

// Site is a static site on loopback.
type Site struct {
	Srv *httptest.Server

	mu    sync.Mutex
	pages map[string]Page
	// Build, when set, is every sitemap entry's lastmod and the footer's
	// year comes from it: the generator stamps the build.
	build string
	// SitemapPath is where the sitemap is served ("/sitemap.xml").
	sitemapPath string
	gzip        bool
	robots      string // "" answers 404
	extra       []string
	raw         map[string]string // documents served as they are, by path
	hits        map[string]int
	whole       map[string]int // answers with a body, by path
	etags       bool
}

// New serves an empty site; Set fills it.
func New() *Site {
	s := &Site{pages: map[string]Page{}, sitemapPath: "/sitemap.xml", hits: map[string]int{}, whole: map[string]int{}}
	s.Srv = httptest.NewServer(s)
	return s
}

// Close stops the server.
func (s *Site) Close() { s.Srv.Close() }

// URL is the address of path on the site.
func (s *Site) URL(path string) string { return s.Srv.URL + path }

// Version replaces the site's pages and build stamp: the next version of
// the site, as a generator would deploy it.
func (s *Site) Version(build string, pages map[string]Page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.build = build
	s.pages = pages
}

// Sitemap sets where the sitemap is, and whether it is gzip-compressed
// (a ".gz" path is, whatever gz says).
func (s *Site) Sitemap(path string, gz bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sitemapPath, s.gzip = path, gz || strings.HasSuffix(path, ".gz")
}

// Robots sets robots.txt; "" answers 404.
func (s *Site) Robots(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.robots = body
}

// ExtraEntries adds raw <url> elements to the sitemap (other hosts, bad
// addresses).
func (s *Site) ExtraEntries(xml ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extra = append(s.extra, xml...)
}

// Raw serves body as XML at path, "{root}" replaced by the site's
// address: a sitemap index, a second sitemap.
func (s *Site) Raw(path, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.raw == nil {
		s.raw = map[string]string{}
	}
	s.raw[path] = body
}

// ETags makes the site answer with content-hash ETags, and 304 to a
// request that names the current one, as a static host does: a test of
// what a harvest does with an unchanged sitemap, where no stale 304 can
// fake a result.
func (s *Site) ETags(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.etags = on
}

// Hits counts the requests for path.
func (s *Site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Whole counts the answers for path that carried a body: not a 304.
func (s *Site) Whole(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.whole[path]
}

// ServeHTTP serves robots.txt, the sitemap and the pages.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := r.URL.Path
	s.hits[p]++
	switch {
	case p == "/robots.txt" && s.robots != "":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.ReplaceAll(s.robots, "{root}", s.Srv.URL))
		return
	case p == s.sitemapPath:
		s.serveSitemap(w, r)
		return
	case s.raw[p] != "":
		s.send(w, r, "application/xml", []byte(strings.ReplaceAll(s.raw[p], "{root}", s.Srv.URL)))
		return
	}
	page, ok := s.pages[p]
	switch {
	case !ok:
		http.NotFound(w, r)
	case page.Redirect != "":
		http.Redirect(w, r, page.Redirect, http.StatusFound)
	case page.Status != 0:
		http.Error(w, http.StatusText(page.Status), page.Status)
	default:
		s.send(w, r, "text/html; charset=utf-8", []byte(s.render(page)))
	}
}

// send answers body, with a content-hash ETag and a 304 to a request
// naming it when the site serves ETags.
func (s *Site) send(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	if s.etags {
		sum := sha256.Sum256(body)
		tag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	s.whole[r.URL.Path]++
	w.Header().Set("Content-Type", contentType)
	w.Write(body)
}

func (s *Site) paths() []string {
	var out []string
	for p, page := range s.pages {
		if !page.Unlisted {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Site) serveSitemap(w http.ResponseWriter, r *http.Request) {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, p := range s.paths() {
		sb.WriteString("<url><loc>" + html.EscapeString(s.Srv.URL+p) + "</loc>")
		if lm := s.lastmod(s.pages[p]); lm != "" {
			sb.WriteString("<lastmod>" + lm + "</lastmod>")
		}
		sb.WriteString("</url>\n")
	}
	sb.WriteString(strings.ReplaceAll(strings.Join(s.extra, "\n"), "{root}", s.Srv.URL))
	sb.WriteString("</urlset>\n")
	if !s.gzip {
		s.send(w, r, "application/xml", []byte(sb.String()))
		return
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(sb.String()))
	zw.Close()
	s.send(w, r, "application/octet-stream", zb.Bytes())
}

func (s *Site) lastmod(p Page) string {
	if s.build != "" {
		return s.build
	}
	return p.Lastmod
}

// render writes a page as generators do: SEO metadata and a navigation
// that change with every build, the main text, and a footer.
func (s *Site) render(p Page) string {
	var sb strings.Builder
	year := "2026"
	if len(s.build) >= 4 {
		year = s.build[:4]
	}
	fmt.Fprintf(&sb, "<!doctype html><html><head><title>%s</title><meta name=\"generator\" content=\"build %s\"></head><body>\n",
		html.EscapeString(p.Title), html.EscapeString(s.build))
	sb.WriteString("<nav><ul>")
	for _, q := range s.paths() {
		fmt.Fprintf(&sb, `<li><a href="%s">%s</a></li>`, q, html.EscapeString(s.pages[q].Title))
	}
	sb.WriteString("</ul></nav>\n<main><article>")
	fmt.Fprintf(&sb, "<h1>%s</h1>\n", html.EscapeString(p.Title))
	for _, line := range strings.Split(p.Text, "\n") {
		fmt.Fprintf(&sb, "<p>%s</p>\n", html.EscapeString(line))
	}
	sb.WriteString(p.Aside)
	fmt.Fprintf(&sb, "</article></main>\n<footer>© %s The Shrine Keeper · built %s</footer></body></html>\n", year, html.EscapeString(s.build))
	return sb.String()
}
