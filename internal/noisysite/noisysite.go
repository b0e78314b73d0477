// Package noisysite serves a small generated site, a blog beside its
// documentation, whose pages change in the ways that are no news: widgets
// that change at every read (a quote of the day, a webring's random
// member, a rotating banner), a navbar naming the release and its
// sections on every page, and listings (the home page, the list of
// posts, the tags, a post's previous and next links) that change only
// to name a new or edited post. Its sitemap gives no lastmod, as many
// generators write it; or none, and it is a site of watched pages. Tests set its versions and count how many of a
// harvest's entries are news. Everything is made by the code: no
// fixture file.
package noisysite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// Post is one blog post; its summary is its first paragraph, as
// generators take it.
type Post struct {
	Slug, Title string
	Paragraphs  []string
	Tags        []string
}

// Doc is one page of the documentation.
type Doc struct {
	Path, Title string
	Paragraphs  []string
}

// Version is what one build of the site holds.
type Version struct {
	// Release is the project's name and version, in every navbar
	// ("parsnip 1.4.0").
	Release string
	// Nav are the navbar's sections.
	Nav   []string
	Posts []Post // oldest first
	Docs  []Doc
}

// Site is the site on loopback.
type Site struct {
	Srv *httptest.Server

	mu    sync.Mutex
	v     Version
	o     Options
	reads int // pages served so far: what the widgets turn on
	hits  map[string]int
}

// Options say what the site has besides its pages.
type Options struct {
	// Widgets: every page read brings a new quote, webring member and
	// banner.
	Widgets bool
	// NoSitemap: the site publishes no sitemap (/sitemap.xml answers
	// 404), so its pages are watched.
	NoSitemap bool
}

// New serves an empty site.
func New(o Options) *Site {
	s := &Site{o: o, hits: map[string]int{}}
	s.Srv = httptest.NewServer(s)
	return s
}

// Close stops the server.
func (s *Site) Close() { s.Srv.Close() }

// URL is the address of path on the site.
func (s *Site) URL(path string) string { return s.Srv.URL + path }

// Set deploys a version.
func (s *Site) Set(v Version) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.v = v
}

// Hits counts the requests for path.
func (s *Site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Paths are the site's pages, as its sitemap lists them.
func (v Version) Paths() []string {
	out := []string{"/", "/post/", "/tags/"}
	for _, p := range v.Posts {
		out = append(out, PostPath(p.Slug))
	}
	for _, d := range v.Docs {
		out = append(out, d.Path)
	}
	return out
}

// PostPath is where a post is.
func PostPath(slug string) string { return "/post/" + slug + "/" }

// Quotes, Members and Banners are what the widgets show, in turn.
var (
	Quotes  = []string{"The early bird catches the worm.", "Fortune favours the bold.", "Slow and steady wins the race.", "Look before you leap.", "Still waters run deep.", "Many hands make light work.", "Every cloud has a silver lining."}
	Members = []string{"Kestrel's corner", "Owl hollow", "The bat cave", "Night flyers", "Moss and lichen", "Pond life"}
	Banners = []string{"Seed swap this Sunday!", "Sign the guestbook, please", "Best viewed at night", "Mind the frogs", "Tea is on at four"}
)

// ServeHTTP serves the sitemap and the pages, with content-hash ETags
// and 304s as a static host does.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := r.URL.Path
	s.hits[p]++
	if p == "/sitemap.xml" && !s.o.NoSitemap {
		var sb strings.Builder
		sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for _, q := range s.v.Paths() {
			sb.WriteString("<url><loc>" + html.EscapeString(s.Srv.URL+q) + "</loc></url>\n")
		}
		sb.WriteString("</urlset>\n")
		send(w, r, "application/xml", sb.String())
		return
	}
	main, title, ok := s.main(p)
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.reads++
	send(w, r, "text/html; charset=utf-8", s.page(title, main))
}

func send(w http.ResponseWriter, r *http.Request, contentType, body string) {
	sum := sha256.Sum256([]byte(body))
	tag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", tag)
	if r.Header.Get("If-None-Match") == tag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", contentType)
	fmt.Fprint(w, body)
}

// main is a page's own markup and title.
func (s *Site) main(p string) (string, string, bool) {
	var sb strings.Builder
	v := s.v
	switch {
	case p == "/":
		sb.WriteString("<h1>Parsnip</h1><p>Parsnip digs your garden's data.</p><h2>Latest posts</h2>")
		latest := v.Posts[max(len(v.Posts)-3, 0):]
		for i := len(latest) - 1; i >= 0; i-- {
			listPost(&sb, latest[i])
		}
		sb.WriteString(`<p><a href="/post/">All posts</a> · <a href="/tags/">Tags</a></p><h2>Documentation</h2><ul>`)
		for _, d := range v.Docs {
			fmt.Fprintf(&sb, `<li><a href="%s">%s</a></li>`, d.Path, html.EscapeString(d.Title))
		}
		sb.WriteString("</ul>")
		return sb.String(), "Parsnip", true
	case p == "/post/":
		sb.WriteString("<h1>Posts</h1>")
		for i := len(v.Posts) - 1; i >= 0; i-- {
			listPost(&sb, v.Posts[i])
		}
		return sb.String(), "Posts", true
	case p == "/tags/":
		sb.WriteString("<h1>Tags</h1>")
		var tags []string
		for _, q := range v.Posts {
			for _, t := range q.Tags {
				if !slices.Contains(tags, t) {
					tags = append(tags, t)
				}
			}
		}
		slices.Sort(tags)
		for _, t := range tags {
			fmt.Fprintf(&sb, "<h2>%s</h2><ul>", html.EscapeString(t))
			for _, q := range v.Posts {
				if slices.Contains(q.Tags, t) {
					fmt.Fprintf(&sb, `<li><a href="%s">%s</a></li>`, PostPath(q.Slug), html.EscapeString(q.Title))
				}
			}
			sb.WriteString("</ul>")
		}
		return sb.String(), "Tags", true
	}
	for i, q := range v.Posts {
		if p != PostPath(q.Slug) {
			continue
		}
		fmt.Fprintf(&sb, "<h1>%s</h1>", html.EscapeString(q.Title))
		paragraphs(&sb, q.Paragraphs)
		fmt.Fprintf(&sb, "<p>Tags: %s</p>", html.EscapeString(strings.Join(q.Tags, ", ")))
		if i > 0 {
			fmt.Fprintf(&sb, `<p><a href="%s">← Previous: %s</a></p>`, PostPath(v.Posts[i-1].Slug), html.EscapeString(v.Posts[i-1].Title))
		}
		if i+1 < len(v.Posts) {
			fmt.Fprintf(&sb, `<p><a href="%s">Next: %s →</a></p>`, PostPath(v.Posts[i+1].Slug), html.EscapeString(v.Posts[i+1].Title))
		}
		return sb.String(), q.Title, true
	}
	for _, d := range v.Docs {
		if p == d.Path {
			fmt.Fprintf(&sb, "<h1>%s</h1>", html.EscapeString(d.Title))
			paragraphs(&sb, d.Paragraphs)
			return sb.String(), d.Title, true
		}
	}
	return "", "", false
}

func listPost(sb *strings.Builder, q Post) {
	fmt.Fprintf(sb, `<h3><a href="%s">%s</a></h3>`, PostPath(q.Slug), html.EscapeString(q.Title))
	if len(q.Paragraphs) > 0 {
		fmt.Fprintf(sb, "<p>%s</p>", html.EscapeString(q.Paragraphs[0]))
	}
}

func paragraphs(sb *strings.Builder, ps []string) {
	for _, p := range ps {
		fmt.Fprintf(sb, "<p>%s</p>", html.EscapeString(p))
	}
}

// page wraps a page's own markup in the site's: the navbar with the
// release and the sections, and the widgets when the site has them.
func (s *Site) page(title, main string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "<!doctype html><html><head><title>%s</title></head><body><main><nav><p>%s</p><ul>", html.EscapeString(title), html.EscapeString(s.v.Release))
	for _, n := range s.v.Nav {
		fmt.Fprintf(&sb, "<li><a href=\"/%s/\">%s</a></li>", strings.ToLower(strings.Fields(n)[0]), html.EscapeString(n))
	}
	sb.WriteString("</ul></nav><article>")
	sb.WriteString(main)
	if s.o.Widgets {
		n := s.reads
		fmt.Fprintf(&sb, "<aside><p>Quote of the day: %s</p><p>Our banner</p><p>%s</p><p>Thanks for reading</p><p>Webring: visit %s</p></aside>",
			Quotes[n%len(Quotes)], Banners[(n*2)%len(Banners)], Members[(n*5)%len(Members)])
	}
	sb.WriteString("</article></main><footer><p>Made with parsnip</p></footer></body></html>\n")
	return sb.String()
}
