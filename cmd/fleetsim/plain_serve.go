package main

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// newPlainFor makes site i, the j-th of its kind, a sitemap or pages site
// of between sh.MinPages and sh.MaxPages pages.
func newPlainFor(seed int64, i, j int, kind Kind, sh Shape) *plainSite {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(i)|7<<60))
	n := sh.MinPages + r.IntN(sh.MaxPages-sh.MinPages+1)
	scope := "/"
	var v sitemapVariant
	if kind == KindSitemap {
		v = sitemapVariants[j%len(sitemapVariants)]
		scope = v.scope
	}
	ps := newPlainSite(seed, i, n, scope)
	ps.variant = v
	ps.validators = !lacksValidators(j, sh.NoValidators)
	return ps
}

// servePlain answers for a sitemap or pages site, and says whether the
// request was for a page or a sitemap file. Its server sends validators
// or, for the fraction that does not, neither ETag nor Last-Modified,
// and then answers every request in full, as many dynamic sites do.
func (f *Fleet) servePlain(w http.ResponseWriter, r *http.Request, s *site, i int) (isPage, isSitemap bool) {
	ps := s.plain
	path := r.URL.Path
	s.mu.RLock()
	d, isDoc := s.docs[path]
	s.mu.RUnlock()
	// byPath is fixed when the site is made: read without the lock.
	x, isPage := ps.byPath[path]
	switch {
	case isDoc:
		w.Header().Set("Content-Type", contentType(path))
		if ps.validators {
			w.Header().Set("ETag", d.etag)
			http.ServeContent(w, r, "", d.modtime, bytes.NewReader(d.body))
		} else {
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(d.body))
		}
		return false, strings.Contains(path, "sitemap")
	case isPage:
		f.servePlainPage(w, r, s, i, x)
		return true, false
	}
	if _, ok := ps.byPath[path+"/"]; ok {
		// A static server redirects a directory asked without its slash.
		http.Redirect(w, r, path+"/", http.StatusMovedPermanently)
		return false, false
	}
	http.NotFound(w, r)
	return false, false
}

// servePlainPage answers for page x, rendering it only when the
// validators do not spare it: the pages of 2,000 sites would not fit in
// memory rendered. Its ETag and Last-Modified follow its own text, as a
// server's of a file deployed only when it changed.
func (f *Fleet) servePlainPage(w http.ResponseWriter, r *http.Request, s *site, i, x int) {
	ps := s.plain
	s.mu.RLock()
	v := ps.versions[x]
	mod := ps.modTime(f.shape.epoch(), x)
	s.mu.RUnlock()
	if ps.validators {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%d/%d", f.seed, i, x)
		etag := fmt.Sprintf(`"%x-%d"`, h.Sum64(), v)
		w.Header().Set("ETag", etag)
		if notModified(r, etag, mod) {
			w.Header().Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	body := ps.pageBody(f.seed, i, x, v, s.base, f.shape.epoch().Year())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !ps.validators {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
		return
	}
	http.ServeContent(w, r, "", mod, bytes.NewReader(body))
}

// notModified answers a conditional request as net/http does: by
// If-None-Match when it is sent, else by If-Modified-Since.
func notModified(r *http.Request, etag string, mod time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			if t = strings.TrimPrefix(strings.TrimSpace(t), "W/"); t == etag || t == "*" {
				return true
			}
		}
		return false
	}
	ims, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	return err == nil && !mod.Truncate(time.Second).After(ims)
}

// revisePlain rewrites round(pages × rate) of site i's articles in one
// build, chosen from the seed, the cycle and the site; a negative rate
// rewrites one. It returns the URLs of the pages it changed.
func (f *Fleet) revisePlain(s *site, i int, rate float64) []string {
	ps := s.plain
	arts := ps.articles()
	k := 1
	if rate >= 0 {
		k = int(float64(len(ps.pages))*rate + 0.5)
	}
	k = min(k, len(arts))
	if k == 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(uint64(f.seed), uint64(f.cycle)|uint64(i)<<20|1<<42))
	idx := make([]int, k)
	urls := make([]string, k)
	for n, a := range r.Perm(len(arts))[:k] {
		idx[n] = arts[a]
		urls[n] = s.base + ps.pages[arts[a]].path
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ps.revise(idx)
	s.docs = ps.plainDocs(s.kind, s.base, f.shape.epoch())
	return urls
}
