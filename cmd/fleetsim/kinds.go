package main

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is what a fleet site publishes about its changes.
type Kind string

// The kinds of site a fleet serves. A ResourceSync site has change lists
// (and, with --pages, the HTML pages they name); a sitemap site has a
// plain sitemap and nothing more precise; a pages site has neither, only
// HTML pages linked from its home page.
const (
	KindResourceSync Kind = "resourcesync"
	KindSitemap      Kind = "sitemap"
	KindPages        Kind = "pages"
)

// share is one kind's weight in a Mix.
type share struct {
	kind   Kind
	weight int
}

// Mix says how many sites of each kind a fleet has, as weights taken in
// turn: "resourcesync=1,sitemap=2" makes sites 0, 3, 6, … ResourceSync and
// the others sitemap sites. Interleaved rather than in blocks, so that any
// prefix of the fleet, and any stretch a harvester works through at once,
// has the same mix. The zero Mix is all ResourceSync.
type Mix []share

// parseMix reads --kinds: comma-separated KIND or KIND=WEIGHT.
func parseMix(s string) (Mix, error) {
	var m Mix
	seen := map[Kind]bool{}
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name, w, hasWeight := strings.Cut(f, "=")
		k := Kind(strings.TrimSpace(name))
		if k != KindResourceSync && k != KindSitemap && k != KindPages {
			return nil, fmt.Errorf("fleetsim: no site kind %q: resourcesync, sitemap or pages", name)
		}
		weight := 1
		if hasWeight {
			n, err := strconv.Atoi(strings.TrimSpace(w))
			if err != nil || n < 0 || n > 1000 {
				return nil, fmt.Errorf("fleetsim: the weight of %s must be a whole number within [0, 1000], not %q", k, w)
			}
			weight = n
		}
		if seen[k] {
			return nil, fmt.Errorf("fleetsim: %s is named twice in --kinds", k)
		}
		seen[k] = true
		if weight > 0 {
			m = append(m, share{k, weight})
		}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("fleetsim: --kinds %q names no kind with a weight", s)
	}
	return m, nil
}

// kindOf returns site i's kind and its index among the fleet's sites of
// that kind, which picks its variant.
func (m Mix) kindOf(i int) (Kind, int) {
	if len(m) == 0 {
		return KindResourceSync, i
	}
	total := 0
	for _, s := range m {
		total += s.weight
	}
	round, r := i/total, i%total
	for _, s := range m {
		if r < s.weight {
			return s.kind, round*s.weight + r
		}
		r -= s.weight
	}
	panic("unreachable")
}

// pureResourceSync reports whether every site is a ResourceSync site, as
// fleets were before there were other kinds: their lines then stay bare
// URLs.
func (m Mix) pureResourceSync() bool {
	for _, s := range m {
		if s.kind != KindResourceSync {
			return false
		}
	}
	return true
}

// lacksValidators reports whether the j-th site of a kind is one of the
// fraction whose server sends neither ETag nor Last-Modified. Spread
// evenly: site j lacks them when j×fraction crosses a whole number.
func lacksValidators(j int, fraction float64) bool {
	return int(float64(j+1)*fraction) > int(float64(j)*fraction)
}
