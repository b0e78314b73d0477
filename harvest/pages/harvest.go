package pages

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/harvest/pageset"
	"tidings/pagetext"
	"tidings/urls"
)

// Bounds of a crawl, beside --watch-pages.
const (
	// maxQueryVariants: at most this many addresses of one path that
	// differ by their query string are watched (a calendar's endless
	// ?month= links).
	maxQueryVariants = 5
)

// pageTarget is a page to read in this harvest.
type pageTarget struct {
	url    string
	depth  int
	byHand bool // a person gave its address
	known  bool // already watched
}

// pageRead is a page read with a body in this harvest.
type pageRead struct {
	pageTarget
	id   string // the page's address: its canonical one for a new page
	snap *pagetext.Snapshot
	// stored is the snapshot to store: what is kept of the answer, whose
	// body is dropped once read, so that a harvest holds pages' text,
	// never their markup.
	stored db.Snapshot
	// at is when it was read, which dates its change: pages read one
	// after the other do not share one time, as a reader's feed would
	// show them sharing it.
	at time.Time
}

// pagesHarvest is one harvest of a watched page set: the known pages read
// again, oldest read first, and the links of the pages that answered with
// a body followed to new pages, within the collection's bounds.
type pagesHarvest struct {
	*harvest.CollectionRun
	col       db.Collection
	site      db.Site
	now       time.Time
	scope     urls.WatchScope
	set       *pageset.Set
	watchedBy map[string]db.WatchedPage
	prev      map[string]db.Snapshot
	first     bool
	limit     int // pages the collection may hold
	fetches   int // left for the first crawl; later ones spend --page-fetches
	knownN    int // pages watched before this harvest
	newPages  int // queued, not known

	links, rereads []pageTarget
	has            map[string]bool         // known or queued, and their aliases
	alternates     map[string][]pageTarget // other spellings of pages queued, by alias
	sameText       map[string]string       // the page watched with each text, by its hash
	variants       map[string]int          // query variants queued, by path
	reads          []pageRead
	vanished       map[string]bool // known pages the site says are gone
	checked        map[string]db.WatchedPage
	history        map[string]bool // created pages stored as already seen

	signIn            map[string]int    // sign-in pages reached by redirect
	funnel            map[string]int    // addresses redirected to each page
	moved             map[string]string // known pages that now redirect, to where
	answered          int               // known pages that answered as themselves
	overCap, variantN int
	// refill: the cap kept links out before and there is room now, so
	// the pages are read whole for their links.
	refill    bool
	failed    error           // the first read that failed
	usedGiven map[string]bool // pages discovery passed on, read already
	started   time.Time       // the wall clock at the harvest's start
	lastRead  time.Time       // when the last page was read (readTime)
	st        state
	setAside  int               // links not offered: they led to no page lately
	missing   []pageTarget      // links that answered "not found", asked for again
	sameAs    map[string]sameAs // new addresses left out for a watched page's text
	chrome    map[string]bool   // lines the site's pages lost at once (pagetext.GoneChrome)
	res       harvest.Result
}

// Harvest reads the collection's pages and records what changed. The
// first harvest crawls from where the person pointed and records every
// page found as already seen: a crawl cannot tell which pages are new,
// and a static host's Last-Modified is its last deploy.
func (Source) Harvest(ctx context.Context, r *harvest.CollectionRun) (harvest.Result, error) {
	// Changes come from reading pages, not from a watermark.
	h, err := newPagesHarvest(ctx, r)
	if err != nil {
		return harvest.Result{OwnWatermark: true}, err
	}
	h.plan()
	h.learnNotFound(ctx)
	h.crawl(ctx)
	err = h.finish(ctx)
	h.res.OwnWatermark = true
	return h.res, err
}

func newPagesHarvest(ctx context.Context, r *harvest.CollectionRun) (*pagesHarvest, error) {
	col, site := r.Collection(), r.Site()
	scope, ok := urls.WatchScopeOf(col.Key)
	if !ok {
		return nil, harvest.Problemf("the watched address %s is not one tidings can read", col.Key)
	}
	known, err := r.KnownPages(ctx)
	if err != nil {
		return nil, err
	}
	list, err := r.WatchedPages(ctx)
	if err != nil {
		return nil, err
	}
	prev, err := r.StoredSnapshots(ctx, slices.Collect(maps.Keys(known)))
	if err != nil {
		return nil, err
	}
	h := &pagesHarvest{
		CollectionRun: r, col: col, site: site, now: r.Now(), started: time.Now(), usedGiven: map[string]bool{}, st: loadState(col.State),
		scope: scope, set: pageset.New(known), watchedBy: map[string]db.WatchedPage{}, prev: prev,
		first: len(known) == 0, knownN: len(known), limit: r.Settings().(*Settings).withDefaults().WatchPages,
		has: map[string]bool{}, variants: map[string]int{}, vanished: map[string]bool{},
		checked: map[string]db.WatchedPage{}, history: map[string]bool{}, signIn: map[string]int{},
		funnel: map[string]int{}, moved: map[string]string{}, sameText: map[string]string{},
		alternates: map[string][]pageTarget{}, sameAs: map[string]sameAs{},
	}
	for _, w := range list {
		h.watchedBy[w.URL] = w
	}
	// A known page's Hash is the hash of its text (see judge).
	for u, p := range known {
		if p.Hash != "" && p.Hash != emptyTextHash {
			h.sameText[p.Hash] = u
		}
	}
	// Rejected addresses cost a fetch too; twice the pages is plenty.
	h.fetches = 2 * h.limit
	h.refill = h.st.CapHit && len(known) < h.limit
	return h, nil
}

// plan queues the pages to read: on the first harvest where the crawl
// starts; later every known page, the longest unread first; and the
// address a person gave, when it is in scope and not yet watched.
func (h *pagesHarvest) plan() {
	known := h.set.URLs()
	for _, u := range known {
		h.mark(u)
		if bare, q, _ := strings.Cut(u, "?"); q != "" {
			h.variants[bare]++
		}
	}
	slices.SortStableFunc(known, func(a, b string) int {
		return h.watchedBy[a].CheckedAt.Compare(h.watchedBy[b].CheckedAt)
	})
	for _, u := range known {
		w := h.watchedBy[u]
		h.rereads = append(h.rereads, pageTarget{url: u, depth: w.Depth, byHand: w.ByHand, known: true})
	}
	if h.first {
		if start, ok := urls.Canonical(h.col.SourceURL, true); ok {
			h.mark(start)
			h.links = append(h.links, pageTarget{url: start})
			h.newPages++
		}
	}
	if in, ok := urls.Canonical(h.site.InputURL, true); ok && h.scope.Contains(in) && !h.has[in] && !h.has[urls.AliasKey(in)] {
		h.mark(in)
		h.links = append(h.links, pageTarget{url: in, byHand: true})
		h.newPages++
	}
	// Links the last harvest offered and could not read come before the
	// pages known.
	for _, u := range slices.Sorted(maps.Keys(h.st.Pending)) {
		d := h.st.Pending[u]
		delete(h.st.Pending, u)
		if h.has[u] || h.has[urls.AliasKey(u)] || h.st.skipped(u, h.now) || h.knownN+h.newPages >= h.limit {
			continue
		}
		h.mark(u)
		h.newPages++
		h.links = append(h.links, pageTarget{url: u, depth: d})
	}
	// Links that answered "not found": a page linked before it was
	// written is found the harvest after it appears. They are asked for
	// last, within the cap left by the pages found meanwhile.
	for _, u := range h.st.dueMissing(h.now) {
		h.missing = append(h.missing, pageTarget{url: u, depth: h.st.Skip[u].Depth})
	}
}

// mark notes an address as known or queued, with its alias.
func (h *pagesHarvest) mark(u string) {
	h.has[u] = true
	h.has[urls.AliasKey(u)] = true
}

// crawl reads the queued pages, new links first, while the budget lasts.
// Known pages left unread are read first next time.
func (h *pagesHarvest) crawl(ctx context.Context) {
	for len(h.links)+len(h.rereads)+len(h.missing) > 0 && ctx.Err() == nil {
		var t pageTarget
		switch {
		case len(h.links) > 0:
			t, h.links = h.links[0], h.links[1:]
		case len(h.rereads) > 0:
			t, h.rereads = h.rereads[0], h.rereads[1:]
		default:
			t, h.missing = h.missing[0], h.missing[1:]
			if h.has[t.url] || h.has[urls.AliasKey(t.url)] || h.knownN-h.gone()+h.newPages >= h.limit {
				// Found meanwhile, another spelling of a page watched
				// (/index.html for /), or no room under the cap.
				continue
			}
			h.mark(t.url)
			h.newPages++
		}
		if read := h.passed(t.url); (t.known || !read) && !h.spend() {
			h.pend(append(h.links, t))
			h.links = nil
			break
		}
		h.read(ctx, t)
	}
}

// pend keeps the new links left unread for the next harvest, within
// maxPending.
func (h *pagesHarvest) pend(links []pageTarget) {
	if h.first {
		// The first crawl's pages are all already seen; one it did not
		// reach is found as the cap and refills allow (CapHit).
		return
	}
	for _, l := range links {
		if l.known || len(h.st.Pending) >= maxPending {
			continue
		}
		h.st.Pending[l.url] = l.depth
	}
}

// spend takes one fetch from the budgets: the first crawl's own, or the
// site harvest's page fetches; and the documents of the site harvest.
func (h *pagesHarvest) spend() bool {
	if h.Paused() {
		return false
	}
	if h.first {
		if h.fetches <= 0 {
			return false
		}
		h.fetches--
	} else if !h.TakePageFetch() {
		return false
	}
	if err := h.SpendDocument(); err != nil {
		if h.failed == nil {
			h.failed = err
		}
		return false
	}
	return true
}

// finish records the changes, the pages, and what was read, and says
// what was left out.
func (h *pagesHarvest) finish(ctx context.Context) error {
	if len(h.reads) == 0 && h.first {
		for u := range h.signIn {
			return harvest.Problemf("the pages of %s lead to a sign-in page (%s); tidings watches only pages anyone can read", h.scope.URL(), u)
		}
		if h.failed != nil {
			return h.failed
		}
		return harvest.Problemf("no page of %s could be watched", h.scope.URL())
	}
	if h.answered == 0 && len(h.reads)+len(h.vanished)+len(h.moved) == 0 && h.failed != nil {
		// No page answered at all: the site is down, or asked for a
		// pause. That is the harvest's error, not one warning a page.
		h.ClearWarnings()
		return h.failed
	}
	h.settleMoves()
	h.judge(ctx)
	h.res.Pages, h.res.Gone = h.set.ToStore()
	for _, u := range slices.Sorted(maps.Keys(h.checked)) {
		h.res.Watched = append(h.res.Watched, h.checked[u])
	}
	for u, n := range h.signIn {
		h.Warn("%d address(es) lead to a sign-in page (%s) and are not watched", n, u)
	}
	for u, n := range h.funnel {
		if n >= minFunnel && h.signIn[u] == 0 {
			h.Warn("%d addresses redirect to %s (a sign-in page, or where the site sends the pages it does not have); they are not watched apart", n, u)
		}
	}
	h.st.CapHit = h.overCap > 0 || h.st.CapHit && !h.refill
	if h.overCap > 0 {
		h.Warn("the site has more pages than tidings watches (--watch-pages %d); %d more links were not followed", h.limit, h.overCap)
	}
	if h.setAside > 0 {
		h.Warn("%d links were not followed: lately they led to nothing tidings could read (too large, not a page, broken or too slow); they are tried again later", h.setAside)
	}
	if h.variantN > 0 {
		h.Warn("%d links that differ only by their query string (a calendar's next month, a search) were not followed: at most %d of one page are watched", h.variantN, maxQueryVariants)
	}
	h.res.State = h.st.encode(h.now)
	return nil
}

// emptyTextHash is the text hash of a page without text: pages that have
// none are not the same page for it.
const emptyTextHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
