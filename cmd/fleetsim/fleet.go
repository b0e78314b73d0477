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

	mu    sync.Mutex
	stats Stats
}

// Stats counts the requests a fleet answered.
type Stats struct {
	Requests    int         `json:"requests"`
	NotModified int         `json:"not_modified"`
	Bytes       int64       `json:"bytes"`
	ByStatus    map[int]int `json:"by_status"`
	Pages       int         `json:"pages"` // requests for HTML pages, among Requests
}

type site struct {
	base string
	srv  *http.Server
	ln   net.Listener

	mu       sync.RWMutex
	gen      int
	docs     map[string]doc
	revs     []revision
	versions map[pageKey]int // how many times each revised page was
}

type doc struct {
	body    []byte
	etag    string
	modtime time.Time
}

// StartFleet listens on n loopback ports and serves a site on each.
func StartFleet(seed int64, n int, sh Shape, log io.Writer) (*Fleet, error) {
	f := &Fleet{seed: seed, shape: sh, log: log, stats: Stats{ByStatus: map[int]int{}}}
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("fleetsim: listen for site %d: %w", i, err)
		}
		s := &site{base: "http://" + ln.Addr().String(), ln: ln, versions: map[pageKey]int{}}
		s.render(seed, i, sh)
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
		docs[p] = doc{body: body, etag: fmt.Sprintf(`"%x"`, sha256.Sum256(body))[:18] + `"`, modtime: mod}
	}
	s.mu.Lock()
	s.docs = docs
	s.mu.Unlock()
}

// URLs returns every site's root URL, in order.
func (f *Fleet) URLs() []string {
	out := make([]string, len(f.sites))
	for i, s := range f.sites {
		out[i] = s.base + "/"
	}
	return out
}

// Mutate runs one mutation cycle: round(sites × rate) sites, chosen from
// the seed and the cycle number, gain one entry in each collection's
// latest change list. It returns their indexes.
func (f *Fleet) Mutate(rate float64) []int {
	f.cycle++
	idx := mutated(f.seed, f.cycle, len(f.sites), rate)
	for _, i := range idx {
		s := f.sites[i]
		s.gen++
		s.render(f.seed, i, f.shape)
	}
	sort.Ints(idx)
	return idx
}

// Stats returns the counts since the last Reset.
func (f *Fleet) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.stats
	st.ByStatus = map[int]int{}
	for k, v := range f.stats.ByStatus {
		st.ByStatus[k] = v
	}
	return st
}

// Reset zeroes the counts.
func (f *Fleet) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stats = Stats{ByStatus: map[int]int{}}
}

// Close stops every site.
func (f *Fleet) Close() {
	for _, s := range f.sites {
		s.srv.Close()
	}
}

func (f *Fleet) handler(s *site, i int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{ResponseWriter: w, status: http.StatusOK}
		s.mu.RLock()
		d, ok := s.docs[r.URL.Path]
		s.mu.RUnlock()
		pk, isPage := f.pageOf(r.URL.Path)
		if isPage {
			f.servePage(cw, r, s, i, pk)
		} else if !ok {
			http.NotFound(cw, r)
		} else {
			cw.Header().Set("ETag", d.etag)
			cw.Header().Set("Content-Type", contentType(r.URL.Path))
			// ServeContent answers If-None-Match and If-Modified-Since.
			http.ServeContent(cw, r, "", d.modtime, bytes.NewReader(d.body))
		}
		f.mu.Lock()
		f.stats.Requests++
		f.stats.Bytes += cw.n
		f.stats.ByStatus[cw.status]++
		if isPage {
			f.stats.Pages++
		}
		if cw.status == http.StatusNotModified {
			f.stats.NotModified++
		}
		if f.log != nil {
			fmt.Fprintf(f.log, "%s %s %s %d %d\n", s.base, r.Method, r.URL.Path, cw.status, cw.n)
		}
		f.mu.Unlock()
	})
}

func contentType(path string) string {
	if strings.HasSuffix(path, ".txt") {
		return "text/plain; charset=utf-8"
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
