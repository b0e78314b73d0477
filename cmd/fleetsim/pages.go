package main

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"time"
)

// pageOf reads a page path, /cC/pages/NNNNNN.html, naming a page the
// fleet serves.
func (f *Fleet) pageOf(path string) (pageKey, bool) {
	var pk pageKey
	var rest string
	if f.shape.Pages == 0 {
		return pk, false
	}
	n, _ := fmt.Sscanf(path, "/c%d/pages/%06d.html%s", &pk.c, &pk.p, &rest)
	if n != 2 || pk.c < 0 || pk.c >= f.shape.Collections || pk.p < 0 || pk.p >= f.shape.Pages ||
		path != fmt.Sprintf("/c%d/pages/%06d.html", pk.c, pk.p) {
		return pk, false
	}
	return pk, true
}

// servePage answers for a page, rendering it only when the validators do
// not spare it: 2,000 sites' pages would not fit in memory rendered.
func (f *Fleet) servePage(w http.ResponseWriter, r *http.Request, s *site, i int, pk pageKey) {
	s.mu.RLock()
	v := s.versions[pk]
	s.mu.RUnlock()
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/%d/%d", f.seed, i, pk.c, pk.p)
	etag := fmt.Sprintf(`"p%x-%d"`, h.Sum64(), v)
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	mod := f.shape.epoch().Add(time.Duration(v) * time.Hour)
	// ServeContent answers If-Modified-Since.
	http.ServeContent(w, r, "", mod, bytes.NewReader(pageHTML(f.seed, i, pk.c, pk.p, v, s.base)))
}

// Revise runs one revise cycle. On every ResourceSync site, round(pages ×
// rate) of its pages, chosen from the seed, the cycle and the site, get
// new text in a few paragraphs and an updated entry in their collection's
// latest change list. On every sitemap or pages site, round(pages × rate)
// of its articles get new text in one build, which moves the lastmod of
// every URL in a build-stamped sitemap. It returns how many pages changed.
func (f *Fleet) Revise(rate float64) int {
	f.cycle++
	f.revised = f.revised[:0]
	for i, s := range f.sites {
		if s.plain != nil {
			f.revised = append(f.revised, f.revisePlain(s, i, rate)...)
		} else {
			f.revised = append(f.revised, f.reviseResourceSync(s, i, rate)...)
		}
	}
	return len(f.revised)
}

// reviseResourceSync revises site i's pages and returns their URLs.
func (f *Fleet) reviseResourceSync(s *site, i int, rate float64) []string {
	total := f.shape.Collections * f.shape.Pages
	k := min(max(int(float64(total)*rate+0.5), 0), total)
	if k == 0 {
		return nil
	}
	var urls []string
	r := rand.New(rand.NewPCG(uint64(f.seed), uint64(f.cycle)|uint64(i)<<20|1<<41))
	idx := r.Perm(total)[:k]
	sort.Ints(idx)
	rv := revision{cycle: f.cycle}
	s.mu.Lock()
	for _, x := range idx {
		pk := pageKey{c: x / f.shape.Pages, p: x % f.shape.Pages}
		rv.pages = append(rv.pages, pk)
		s.versions[pk]++
		urls = append(urls, fmt.Sprintf("%s/c%d/pages/%06d.html", s.base, pk.c, pk.p))
	}
	s.revs = append(s.revs, rv)
	s.mu.Unlock()
	s.render(f.seed, i, f.shape)
	return urls
}

// Revised returns the URL of every page the last revise cycle changed.
func (f *Fleet) Revised() []string {
	return slices.Clone(f.revised)
}
