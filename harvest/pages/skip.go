package pages

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"tidings/crawl"
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
	// NotFound is the shape of that answer, when its text varies at
	// every reading; Shaped, that it was looked for (a second address
	// asked for), so that it is looked for once.
	NotFound *crawl.NotFoundShape `json:"not_found,omitempty"`
	Shaped   bool                 `json:"shaped,omitempty"`
	// Pending are links a harvest offered but did not read, its page
	// fetches spent, with their depth: the next harvest reads them first,
	// since the pages that link them may answer 304 from then on and
	// never offer them again.
	Pending map[string]int `json:"pending,omitempty"`
	// CapHit: a harvest left links out for the cap (--watch-pages), so
	// when pages go the watched ones are read whole again for their links.
	CapHit bool `json:"cap_hit,omitempty"`
}

// skip is a link set aside.
type skip struct {
	Until time.Time `json:"until"`
	Fails int       `json:"fails"`
	// Missing: the link answered "not found" (404, 410, or the site's
	// page saying so), when Until was. Such a link costs a few hundred
	// bytes, and hand-made sites link a page before they write it: it is
	// not set aside but asked for again at the next harvest (maxMissing a
	// harvest, the longest unasked first), and at once when a page
	// linking it is read again. Depth is where it was linked.
	Missing bool `json:"missing,omitempty"`
	Depth   int  `json:"depth,omitempty"`
}

// maxMissing bounds the links that answered "not found" one harvest asks
// for again; maxPending the links left unread that are kept for the next.
const (
	maxMissing = 50
	maxPending = 500
)

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
	if st.Pending == nil {
		st.Pending = map[string]int{}
	}
	return st
}

// skipped reports whether a link is set aside now; one that answered
// "not found" never is.
func (st *state) skipped(u string, now time.Time) bool {
	s, ok := st.Skip[u]
	return ok && !s.Missing && now.Before(s.Until)
}

// missing remembers a link that answered "not found" now.
func (st *state) missing(u string, depth int, now time.Time) {
	st.Skip[u] = skip{Until: now, Fails: st.Skip[u].Fails + 1, Missing: true, Depth: depth}
}

// missingEvery is how many harvests in a row a link that answered "not
// found" is asked for again; past them it waits a day more for each
// further miss, up to maxMissingWait: a link that stays broken costs a
// request a week, and one whose page is written comes the harvest after.
const (
	missingEvery   = 3
	maxMissingWait = 7 * 24 * time.Hour
)

// dueMissing returns the links that answered "not found" to ask for
// again now, at most maxMissing, the longest unasked first.
func (st *state) dueMissing(now time.Time) []string {
	var urls []string
	for u, s := range st.Skip {
		wait := min(time.Duration(max(s.Fails-missingEvery, 0))*24*time.Hour, maxMissingWait)
		// An hour's slack: harvests a day apart come a little early.
		if s.Missing && !now.Before(s.Until.Add(wait-time.Hour)) {
			urls = append(urls, u)
		}
	}
	slices.SortFunc(urls, func(a, b string) int {
		if c := st.Skip[a].Until.Compare(st.Skip[b].Until); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return urls[:min(len(urls), maxMissing)]
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
