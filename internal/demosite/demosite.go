// Package demosite serves the sample sites of `tidings demo` on loopback:
// one that publishes ResourceSync change lists, one with only a plain
// sitemap, and one with only pages linked from its home page, each on a
// port of its own so that each is a site of its own. Every Change
// rewrites a few pages of each (their titles and text), and the first
// site lists the change in its change list and the second moves the
// page's lastmod, so that a reader watching their feeds sees them fill.
// Its Mailbox receives what the demo sends, e-mail and pushes, on
// loopback too.
package demosite

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Kind says how a sample site announces its changes.
type Kind int

// The sample sites, most precise source first.
const (
	ResourceSync Kind = iota // a Source Description, a capability list, a change list
	Sitemap                  // robots.txt names a sitemap with lastmod
	Pages                    // nothing published: pages linked from the home page
)

// maxListed bounds the change list: older changes drop off it, as on a
// real site, so that a demo left running does not grow without end.
const maxListed = 500

// page is one page of a sample site.
type page struct {
	path     string
	title    string
	lines    []string
	modified time.Time
	edits    int
}

// change is one entry of the ResourceSync site's change list.
type change struct {
	path string
	kind string
	at   time.Time
}

// Site is one running sample site.
type Site struct {
	Kind Kind
	Name string
	URL  string // its root, without the trailing slash

	srv   *http.Server
	mu    sync.Mutex
	pages []*page
	list  []change
	next  int // the page the next Change rewrites first
}

// Sites are the three sample sites.
type Sites struct {
	All []*Site
}

// Start starts the three sample sites on 127.0.0.1, their pages dated
// relative to now: most were made long ago (a new follower's first
// harvest stores them as already seen), two in the last days.
func Start(now time.Time) (*Sites, error) {
	out := &Sites{}
	for _, k := range []Kind{ResourceSync, Sitemap, Pages} {
		s, err := start(k, now.UTC())
		if err != nil {
			out.Close()
			return nil, err
		}
		out.All = append(out.All, s)
	}
	return out, nil
}

// Close stops every site.
func (ss *Sites) Close() {
	for _, s := range ss.All {
		s.srv.Close()
	}
}

// Of returns the site of kind k.
func (ss *Sites) Of(k Kind) *Site {
	for _, s := range ss.All {
		if s.Kind == k {
			return s
		}
	}
	return nil
}

// Change rewrites n pages of every site, at now.
func (ss *Sites) Change(n int, now time.Time) {
	for _, s := range ss.All {
		s.Change(n, now)
	}
}

// Run calls Change(n) every interval until ctx ends.
func (ss *Sites) Run(ctx context.Context, n int, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			ss.Change(n, now)
		}
	}
}

func start(k Kind, now time.Time) (*Site, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demosite: %w", err)
	}
	s := &Site{Kind: k, Name: names[k], URL: "http://" + ln.Addr().String()}
	for i, p := range contents[k] {
		created := now.Add(-time.Duration(90+i) * 24 * time.Hour)
		if i >= len(contents[k])-2 {
			created = now.Add(-time.Duration(i-len(contents[k])+3) * 24 * time.Hour)
		}
		s.pages = append(s.pages, &page{path: p.path, title: p.title, lines: p.lines, modified: created})
		s.list = append(s.list, change{path: p.path, kind: "created", at: created})
	}
	slices.SortFunc(s.list, func(a, b change) int { return a.at.Compare(b.at) })
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err)
		}
	}()
	return s, nil
}

// Change rewrites the next n pages of the site: a new title and a changed
// line, which a text diff shows. It returns their URLs.
func (s *Site) Change(n int, now time.Time) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	now = now.UTC().Truncate(time.Second)
	var edited []string
	for range n {
		p := s.pages[s.next%len(s.pages)]
		edited = append(edited, s.URL+p.path)
		s.next++
		p.edits++
		p.title = fmt.Sprintf("%s (edit %d)", strings.SplitN(p.title, " (edit ", 2)[0], p.edits)
		line := edits[(p.edits+len(p.path))%len(edits)]
		p.lines = append(slices.Clone(p.lines[:len(p.lines)-1]), fmt.Sprintf("%s (%s)", line, now.Format("15:04:05")))
		p.modified = now
		s.list = append(s.list, change{path: p.path, kind: "updated", at: now})
	}
	if len(s.list) > maxListed {
		s.list = slices.Clone(s.list[len(s.list)-maxListed:])
	}
	return edited
}

// ServeHTTP answers the site's documents.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	body, ctype, modified, ok := s.document(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	if !modified.IsZero() {
		w.Header().Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	w.Write([]byte(body))
}

// document returns the document at path, its type and when it last
// changed.
func (s *Site) document(path string) (body, ctype string, modified time.Time, ok bool) {
	const xmlType, htmlType = "application/xml", "text/html; charset=utf-8"
	switch {
	case path == "/robots.txt":
		robots := "User-agent: *\nAllow: /\n"
		if s.Kind == Sitemap {
			robots += "Sitemap: " + s.URL + "/sitemap.xml\n"
		}
		return robots, "text/plain; charset=utf-8", time.Time{}, true
	case path == "/" && s.Kind == Pages:
		return s.home(), htmlType, s.newest(), true
	case s.Kind == ResourceSync && path == "/.well-known/resourcesync":
		return s.sourceDescription(), xmlType, time.Time{}, true
	case s.Kind == ResourceSync && path == "/capabilitylist.xml":
		return s.capabilityList(), xmlType, time.Time{}, true
	case s.Kind == ResourceSync && path == "/changelist.xml":
		return s.changeList(), xmlType, s.newest(), true
	case s.Kind == Sitemap && path == "/sitemap.xml":
		return s.sitemap(), xmlType, s.newest(), true
	}
	for _, p := range s.pages {
		if p.path == path {
			return s.render(p), htmlType, p.modified, true
		}
	}
	return "", "", time.Time{}, false
}

func (s *Site) newest() time.Time {
	var t time.Time
	for _, p := range s.pages {
		if p.modified.After(t) {
			t = p.modified
		}
	}
	return t
}

func (s *Site) render(p *page) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body><nav><a href=\"/\">%s</a></nav>\n<main><h1>%s</h1>\n",
		html.EscapeString(p.title), html.EscapeString(s.Name), html.EscapeString(p.title))
	for _, l := range p.lines {
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(l))
	}
	b.WriteString("</main></body></html>\n")
	return b.String()
}

// home is the watched site's home page: its pages, linked.
func (s *Site) home() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body><h1>%s</h1><ul>\n",
		html.EscapeString(s.Name), html.EscapeString(s.Name))
	for _, p := range s.pages {
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", p.path, html.EscapeString(p.title))
	}
	b.WriteString("</ul></body></html>\n")
	return b.String()
}

const (
	xmlHead = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	urlset  = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` + "\n"
)

func (s *Site) sourceDescription() string {
	return xmlHead + urlset + `  <rs:ln rel="describedby" href="` + s.URL + `/about.html"/>
  <rs:md capability="description"/>
  <url>
    <loc>` + s.URL + `/capabilitylist.xml</loc>
    <rs:md capability="capabilitylist"/>
    <rs:ln rel="describes" href="` + s.URL + `/"/>
    <rs:ln rel="describedby" href="` + s.URL + `/about.html"/>
  </url>
</urlset>
`
}

func (s *Site) capabilityList() string {
	return xmlHead + urlset + `  <rs:ln rel="up" href="` + s.URL + `/.well-known/resourcesync"/>
  <rs:ln rel="describes" href="` + s.URL + `/"/>
  <rs:md capability="capabilitylist"/>
  <url>
    <loc>` + s.URL + `/changelist.xml</loc>
    <rs:md capability="changelist"/>
  </url>
</urlset>
`
}

func (s *Site) changeList() string {
	var b strings.Builder
	b.WriteString(xmlHead + urlset)
	fmt.Fprintf(&b, "  <rs:ln rel=\"up\" href=\"%s/capabilitylist.xml\"/>\n  <rs:md capability=\"changelist\" from=\"%s\"/>\n",
		s.URL, s.list[0].at.Format(time.RFC3339))
	for _, c := range s.list {
		fmt.Fprintf(&b, "  <url><loc>%s%s</loc><rs:md change=\"%s\" datetime=\"%s\"/></url>\n", s.URL, c.path, c.kind, c.at.Format(time.RFC3339))
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func (s *Site) sitemap() string {
	var b strings.Builder
	b.WriteString(xmlHead + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, p := range s.pages {
		fmt.Fprintf(&b, "  <url><loc>%s%s</loc><lastmod>%s</lastmod></url>\n", s.URL, p.path, p.modified.Format(time.RFC3339))
	}
	b.WriteString("</urlset>\n")
	return b.String()
}
