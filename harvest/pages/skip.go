package pages

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// A link that led to no page tidings can read (too large, not a page,
// broken, too slow) is not offered again for a while, so that a site
// linking endless files costs its bandwidth once, not at every harvest;
// each further failure doubles the wait.
const (
	firstSkip = 7 * 24 * time.Hour
	maxSkip   = 90 * 24 * time.Hour
	// maxSkipped bounds the links remembered; the soonest due go first.
	maxSkipped = 1000
	// slowShare: a watched page that took too long before gets this share
	// of --page-timeout.
	slowShare = 3
)

// state is what a watched page set keeps between harvests beside its
// pages.
type state struct {
	// Skip are the links not to offer before their time.
	Skip map[string]skip `json:"skip,omitempty"`
	// Slow are the watched pages that took too long to read last time.
	Slow map[string]bool `json:"slow,omitempty"`
	// Answers200, once learned, says whether the site answers an address
	// it does not have with 200 (a "soft 404"); NotFoundHash is the text
	// hash of that answer, which no page of the site then has.
	Answers200   *bool  `json:"answers_200,omitempty"`
	NotFoundHash string `json:"not_found_hash,omitempty"`
	// CapHit: a harvest left links out for the cap (--watch-pages), so
	// when pages go the watched ones are read whole again for their links.
	CapHit bool `json:"cap_hit,omitempty"`
}

// skip is a link set aside.
type skip struct {
	Until time.Time `json:"until"`
	Fails int       `json:"fails"`
}

// loadState reads the stored state; one that cannot be read starts empty,
// which costs the links' reads once again.
func loadState(s string) state {
	var st state
	if s != "" {
		_ = json.Unmarshal([]byte(s), &st)
	}
	if st.Skip == nil {
		st.Skip = map[string]skip{}
	}
	if st.Slow == nil {
		st.Slow = map[string]bool{}
	}
	return st
}

// skipped reports whether a link is set aside now.
func (st *state) skipped(u string, now time.Time) bool {
	s, ok := st.Skip[u]
	return ok && now.Before(s.Until)
}

// setAside remembers a link that led to no page.
func (st *state) setAside(u string, now time.Time) {
	s := st.Skip[u]
	wait := firstSkip
	for range s.Fails {
		if wait *= 2; wait >= maxSkip {
			wait = maxSkip
			break
		}
	}
	st.Skip[u] = skip{Until: now.Add(wait), Fails: s.Fails + 1}
}

// encode returns the state to store, the links past due forgotten and the
// rest bounded.
func (st *state) encode(now time.Time) *string {
	for u, s := range st.Skip {
		// Long past its time, a link is forgotten: should it fail
		// again, its wait starts over.
		if now.Sub(s.Until) > maxSkip {
			delete(st.Skip, u)
		}
	}
	if len(st.Skip) > maxSkipped {
		urls := slices.SortedFunc(maps.Keys(st.Skip), func(a, b string) int { return st.Skip[a].Until.Compare(st.Skip[b].Until) })
		for _, u := range urls[:len(urls)-maxSkipped] {
			delete(st.Skip, u)
		}
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil
	}
	s := string(b)
	return &s
}
