package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Fleet is a running set of synthetic sites, each on its own loopback port.
type Fleet struct {
	seed  int64
	shape Shape
	sites []*site
	cycle int
	log   io.Writer // every request as a line, when set
	// revised are the URLs of the pages the last revise changed.
	revised []string

	mu    sync.Mutex
	stats Stats
	// politeness is the least time between the starts of two requests to
	// one site that does not count as too close (--politeness); 0 counts
	// none.
	politeness time.Duration
}

type site struct {
	base  string
	srv   *http.Server
	ln    net.Listener
	kind  Kind
	plain *plainSite // a sitemap or pages site's pages; nil for ResourceSync

	mu       sync.RWMutex
	gen      int
	docs     map[string]doc
	revs     []revision
	versions map[pageKey]int // how many times each revised page was

	// Under the fleet's mu: when the last request to the site began, and
	// how many are being answered.
	lastStart time.Time
	inFlight  int
}

type doc struct {
	body    []byte
	etag    string
	modtime time.Time
}

// StartFleet listens on n loopback ports and serves a site on each.
func StartFleet(seed int64, n int, sh Shape, log io.Writer) (*Fleet, error) {
	f := &Fleet{seed: seed, shape: sh, log: log, stats: newStats()}
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("fleetsim: listen for site %d: %w", i, err)
		}
		s := &site{base: "http://" + ln.Addr().String(), ln: ln, versions: map[pageKey]int{}}
		var j int
		s.kind, j = sh.Mix.kindOf(i)
		if s.kind == KindResourceSync {
			s.render(seed, i, sh)
		} else {
			s.plain = newPlainFor(seed, i, j, s.kind, sh)
			s.docs = s.plain.plainDocs(s.kind, s.base, sh.epoch())
		}
		s.srv = &http.Server{Handler: f.handler(s, i), ReadHeaderTimeout: 10 * time.Second}
		f.sites = append(f.sites, s)
		go s.srv.Serve(ln)
	}
	return f, nil
}

func (s *site) render(seed int64, i int, sh Shape) {
	docs := map[string]doc{}
	mod := sh.epoch().Add(time.Duration(s.gen+len(s.revs)) * time.Hour)
	for p, body := range siteDocs(seed, i, s.gen, sh, s.base, s.revs) {
		docs[p] = doc{body: body, etag: contentETag(body), modtime: mod}
	}
	s.mu.Lock()
	s.docs = docs
	s.mu.Unlock()
}

func contentETag(body []byte) string {
	return fmt.Sprintf(`"%x"`, sha256.Sum256(body))[:18] + `"`
}

// URLs returns the address to follow of every site, in order: its root,
// or for a site under a path, that path.
func (f *Fleet) URLs() []string {
	out := make([]string, len(f.sites))
	for i, s := range f.sites {
		out[i] = s.base + "/"
		if s.plain != nil {
			out[i] = s.base + s.plain.scope
		}
	}
	return out
}

// Lines returns the line fleetsim prints for each site: its URL, and in a
// fleet not only of ResourceSync sites, what the site is: "URL KIND
// VARIANT validators|no-validators PAGES", VARIANT "-" where a kind has
// none and PAGES the HTML pages it serves.
func (f *Fleet) Lines() []string {
	urls := f.URLs()
	if f.shape.Mix.pureResourceSync() {
		return urls
	}
	for i, s := range f.sites {
		variant, validators, pages := "-", "validators", f.shape.Collections*f.shape.Pages
		if ps := s.plain; ps != nil {
			if s.kind == KindSitemap {
				variant = ps.variant.name
			}
			if !ps.validators {
				validators = "no-validators"
			}
			pages = len(ps.pages)
		}
		urls[i] = fmt.Sprintf("%s %s %s %s %d", urls[i], s.kind, variant, validators, pages)
	}
	return urls
}

// Mutate runs one mutation cycle: round(sites × rate) sites, chosen from
// the seed and the cycle number, gain one entry in each collection's
// latest change list. It returns their indexes.
func (f *Fleet) Mutate(rate float64) []int {
	f.cycle++
	idx := mutated(f.seed, f.cycle, len(f.sites), rate)
	for _, i := range idx {
		s := f.sites[i]
		if s.plain != nil {
			// A plain site has no change list to grow: one of its
			// articles is edited instead.
			f.revisePlain(s, i, -1)
			continue
		}
		s.gen++
		s.render(f.seed, i, f.shape)
	}
	sort.Ints(idx)
	return idx
}

// Close stops every site.
func (f *Fleet) Close() {
	for _, s := range f.sites {
		s.srv.Close()
	}
}

func (f *Fleet) handler(s *site, i int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.arrived(s)
		defer f.left(s)
		cw := &countingWriter{ResponseWriter: w, status: http.StatusOK}
		var isPage, isSitemap bool
		if s.plain != nil {
			isPage, isSitemap = f.servePlain(cw, r, s, i)
		} else {
			isPage = f.serveResourceSync(cw, r, s, i)
		}
		f.count(s, r, cw, isPage, isSitemap)
	})
}

// serveResourceSync answers for a ResourceSync site's document or page,
// and says whether it was a page.
func (f *Fleet) serveResourceSync(w http.ResponseWriter, r *http.Request, s *site, i int) bool {
	s.mu.RLock()
	d, ok := s.docs[r.URL.Path]
	s.mu.RUnlock()
	pk, isPage := f.pageOf(r.URL.Path)
	if isPage {
		f.servePage(w, r, s, i, pk)
	} else if !ok {
		http.NotFound(w, r)
	} else {
		w.Header().Set("ETag", d.etag)
		w.Header().Set("Content-Type", contentType(r.URL.Path))
		// ServeContent answers If-None-Match and If-Modified-Since.
		http.ServeContent(w, r, "", d.modtime, bytes.NewReader(d.body))
	}
	return isPage
}

func contentType(path string) string {
	switch {
	case strings.HasSuffix(path, ".txt"):
		return "text/plain; charset=utf-8"
	case strings.HasSuffix(path, ".gz"):
		return "application/gzip"
	case strings.HasSuffix(path, ".css"):
		return "text/css; charset=utf-8"
	}
	return "application/xml"
}

type countingWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (c *countingWriter) WriteHeader(code int) {
	c.status = code
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}
