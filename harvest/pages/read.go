package pages

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"

	"tidings/crawl"
	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/pagetext"
	"tidings/urls"
)

// read fetches one page, conditionally when it is known, and keeps what
// it says.
func (h *pagesHarvest) read(ctx context.Context, t pageTarget) {
	before := len(h.reads)
	defer func() {
		if len(h.reads) == before {
			h.tryAlternate(t)
		}
	}()
	var prev *db.Snapshot
	if p, ok := h.prev[t.url]; ok && t.known {
		prev = &p
	}
	var page crawl.Page
	var id string
	// A collection that has room again after the cap kept links out
	// reads its pages whole, for their links: a 304 would say none.
	o := harvest.ReadOptions{WholeBody: true, Conditional: !h.refill, Extract: true, Types: fetch.PageTypes, Given: h.given(t),
		Timeout: h.patience(t),
		Accept: func(resp *fetch.Response) bool {
			page = crawl.Parse(resp.Body, resp.URL, h.scope)
			var ok bool
			id, ok = h.identify(t, resp.URL, page)
			return ok
		}}
	r, err := h.ReadPage(ctx, t.url, prev, o)
	if errors.Is(err, fetch.ErrUnwantedType) && !t.known {
		h.st.setAside(t.url, h.now) // a link to a file, not a page
		return
	}
	if r.TimedOut {
		h.tooSlow(t)
		return
	}
	if r.Resp == nil && err != nil && !harvest.TooLarge(err) {
		h.readFailed(ctx, t, err)
		return
	}
	delete(h.st.Slow, t.url)
	if r.NotModified {
		h.CountNotModified()
		// Clients send the validators on along redirects, so a page
		// renamed as it was answers 304 from its new address.
		if final, ok := urls.Canonical(r.Resp.URL, strings.Contains(t.url, "?")); ok && isMove(t.url, final) {
			h.funnel[final]++
			h.movedTo(t, final)
			return
		}
		h.check(t, t.url)
		return
	}
	if r.Skipped {
		return
	}
	snap, ok := h.extracted(t, r, err)
	if !ok {
		return
	}
	if !t.known && page.Canonical != "" && page.Canonical != id {
		if h.has[page.Canonical] || h.has[urls.AliasKey(page.Canonical)] {
			return
		}
		id = page.Canonical
	}
	if !t.known && h.st.NotFoundHash != "" && snap.TextHash == h.st.NotFoundHash {
		// What the site answers for an address it does not have.
		h.st.setAside(t.url, h.now)
		return
	}
	if other, ok := h.sameText[snap.TextHash]; ok && !t.known && h.stillThere(other) {
		// Another address of a page already watched, or what a site
		// answers for every address it does not have (a single-page
		// app's fallback to its home page). Unless that page turns out,
		// later in this harvest, to redirect here: then it was renamed.
		h.sameAs[id] = sameAs{target: t, of: other}
		return
	}
	if snap.Text != "" {
		h.sameText[snap.TextHash] = id
	}
	h.mark(id)
	stored := *r.Snapshot
	stored.URL = id
	h.reads = append(h.reads, pageRead{pageTarget: t, id: id, snap: snap, stored: stored, at: h.readTime()})
	h.check(t, id)
	if t.depth < h.maxDepth() {
		h.overCap += page.Dropped
		for _, l := range page.Links {
			h.offer(l, t.depth+1)
		}
	}
}

// identify says which page an answer is, from where it was finally
// served: a known page keeps its address unless it now redirects to
// another page; a new one takes its final address, unless that is out of
// scope or already watched. A sign-in page is no page.
func (h *pagesHarvest) identify(t pageTarget, finalURL string, page crawl.Page) (string, bool) {
	final, ok := urls.Canonical(finalURL, strings.Contains(t.url, "?"))
	moved := ok && isMove(t.url, final)
	if moved {
		h.funnel[final]++
	}
	if page.SignIn && final != t.url {
		h.signIn[final]++
		return "", false
	}
	if t.known && moved {
		h.movedTo(t, final)
		return "", false
	}
	if t.known {
		return t.url, true
	}
	if !ok || !h.scope.Contains(final) || (final != t.url && h.has[final]) {
		return "", false // led elsewhere, or to a page already watched
	}
	return final, true
}

// extracted judges a page's text, all of its body (see siteLines), as
// the page reader read it. A new page must be HTML; a page saying "not
// found" while answering 200 is gone.
func (h *pagesHarvest) extracted(t pageTarget, r harvest.PageRead, err error) (*pagetext.Snapshot, bool) {
	if r.Text == nil && err == nil || harvest.EndedWaiting(err) {
		return nil, false
	}
	snap := r.Text
	if err != nil {
		why := harvest.Problemf("the text of the page %s could not be read", t.url)
		if harvest.TooLarge(err) {
			why = harvest.Problemf("the page %s is larger than tidings reads for its text (%s, --snapshot-max-body)",
				t.url, fetch.SizeString(int64(h.Snapshots().MaxBody)))
		}
		if h.failed == nil {
			h.failed = why
		}
		if t.known {
			h.Warn("%s; it is read again at the next harvest", why)
		} else {
			h.st.setAside(t.url, h.now)
		}
		return nil, false
	}
	if !t.known && !isHTML(snap) {
		h.st.setAside(t.url, h.now)
		return nil, false
	}
	if h.first && t.depth == 0 && h.st.NotFound != nil && !h.st.NotFound.Is(snap.Title, snap.Text) && !h.st.NotFound.Refine(snap.Text) {
		// The start page has every line the "not found" answers share:
		// they are the site's, and tell nothing.
		h.st.NotFound = nil
	}
	if crawl.NotFound(snap.Title, firstLine(snap.Text)) || h.st.NotFound.Is(snap.Title, snap.Text) {
		h.vanished[t.url] = t.known
		if !t.known {
			h.st.missing(t.url, t.depth, h.now)
		}
		return nil, false
	}
	return snap, true
}

// readFailed keeps a known page that could not be read, unless the site
// says it is gone (404, 410): only that deletes a page, or a "not found"
// page answering 200.
func (h *pagesHarvest) readFailed(ctx context.Context, t pageTarget, err error) {
	h.NoteFailure(err)
	if errors.Is(err, fetch.ErrBudgetSpent) {
		// The harvest's download budget, not the page, stopped it: the
		// page waits for the next harvest, unwarned one by one (the
		// collection's run says the budget was spent).
		return
	}
	switch {
	case t.known || ctx.Err() != nil:
	case fetch.Gone(err):
		h.st.missing(t.url, t.depth, h.now)
	default:
		h.st.setAside(t.url, h.now)
	}
	if fetch.Gone(err) {
		h.vanished[t.url] = t.known
		return
	}
	if h.failed == nil {
		h.failed = harvest.RoleError("the page", err)
	}
	if t.known && ctx.Err() == nil {
		h.Warn("%s; it is read again at the next harvest", harvest.RoleError("the page", err))
	}
}

func (h *pagesHarvest) check(t pageTarget, id string) {
	if t.known {
		h.answered++
	}
	delete(h.st.Skip, t.url) // a link that was missing is a page now
	h.checked[id] = db.WatchedPage{URL: id, Depth: t.depth, CheckedAt: h.now, ByHand: t.byHand}
}

// offer queues a link found on a page read, within the collection's
// bounds.
func (h *pagesHarvest) offer(u string, depth int) {
	if h.has[u] {
		return
	}
	if h.st.skipped(u, h.now) {
		h.setAside++
		return
	}
	if h.st.Skip[u].Missing {
		// Asked for again at once, but after the links that led to
		// pages, so that it takes no place of theirs under the cap.
		if !slices.ContainsFunc(h.missing, func(t pageTarget) bool { return t.url == u }) {
			h.missing = append(h.missing, pageTarget{url: u, depth: depth})
		}
		return
	}
	if alias := urls.AliasKey(u); h.has[alias] {
		// Another spelling of a page watched or queued, kept in case the
		// one queued is not there (/about answering 404 where
		// /about.html is the page).
		if alts := h.alternates[alias]; len(alts) < maxAlternates && !slices.ContainsFunc(alts, func(t pageTarget) bool { return t.url == u }) {
			h.alternates[alias] = append(alts, pageTarget{url: u, depth: depth})
		}
		return
	}
	// The cap first: what is counted then stays as small as the pages.
	if h.knownN-h.gone()+h.newPages >= h.limit {
		h.overCap++
		return
	}
	if bare, q, _ := strings.Cut(u, "?"); q != "" {
		if h.variants[bare] >= maxQueryVariants {
			h.variantN++
			return
		}
		h.variants[bare]++
	}
	h.mark(u)
	h.newPages++
	h.links = append(h.links, pageTarget{url: u, depth: depth})
}

func isHTML(s *pagetext.Snapshot) bool {
	return s.MediaType == "text/html" || s.MediaType == "application/xhtml+xml"
}

func firstLine(text string) string {
	l, _, _ := strings.Cut(text, "\n")
	return l
}

// minFunnel: this many addresses redirecting to one page are worth a
// warning; one or two are a site's renamed pages.
const minFunnel = 3

// settleMoves deletes the known pages that now redirect to another page:
// renamed (the new address is watched as a new page) or gone (sent to the
// home page). When no known page read answered as itself, the whole site
// moved or put itself behind something, and the pages are kept until
// they answer again rather than all deleted at once.
func (h *pagesHarvest) settleMoves() {
	if len(h.moved) == 0 {
		return
	}
	if h.answered == 0 {
		for u, to := range h.moved {
			h.Warn("every page tidings read redirects elsewhere (%s to %s); they are kept until they answer again", u, to)
			break
		}
		return
	}
	for u := range h.moved {
		h.vanished[u] = true
	}
}

// stillThere: a watched page has not vanished nor moved in this harvest
// (a page renamed keeps its text at its new address).
func (h *pagesHarvest) stillThere(u string) bool {
	_, moved := h.moved[u]
	return !h.vanished[u] && !moved
}

// isMove: an address answered from another page's, not its own under
// another spelling.
func isMove(from, final string) bool {
	return final != from && urls.AliasKey(final) != urls.AliasKey(from)
}

// movedTo records a known page that now redirects: renamed, or sent
// elsewhere because it is gone. Where it leads is a page like any other.
// See settleMoves.
func (h *pagesHarvest) movedTo(t pageTarget, final string) {
	h.moved[t.url] = final
	if d, ok := h.sameAs[final]; ok && d.of == t.url {
		// Read already, and left out as another address of this page,
		// which was renamed: it is read again as the new page it is.
		delete(h.sameAs, final)
		h.links = append(h.links, d.target)
		return
	}
	if h.scope.Contains(final) {
		h.offer(final, t.depth)
	}
}

// sameAs is a new address left out for answering a watched page's text.
type sameAs struct {
	target pageTarget
	of     string // the watched page
}

// given is what discovery read of a new page, which is then not fetched
// again: a first crawl starts at the page discovery has just read.
func (h *pagesHarvest) given(t pageTarget) *fetch.Response {
	if t.known || !h.passed(t.url) {
		return nil
	}
	v, _ := h.Passed(passKey + t.url)
	h.usedGiven[t.url] = true
	return v.(*fetch.Response)
}

// passed reports whether discovery read the page and it is still to be
// taken.
func (h *pagesHarvest) passed(u string) bool {
	_, ok := h.Passed(passKey + u)
	return ok && !h.usedGiven[u]
}

// maxAlternates bounds the other spellings of one page kept to try.
const maxAlternates = 3

// tryAlternate queues the next other spelling of a new page that turned
// out to be no page (not there, a fallback, another page's address).
func (h *pagesHarvest) tryAlternate(t pageTarget) {
	if t.known {
		return
	}
	alias := urls.AliasKey(t.url)
	alts := h.alternates[alias]
	if len(alts) == 0 {
		return
	}
	next := alts[0]
	h.alternates[alias] = alts[1:]
	h.has[next.url] = true
	h.links = append(h.links, next)
}

// patience is how long a page may take: a watched page that was too slow
// last time gets a share of --page-timeout, so that a site of dripping
// pages costs little after its first harvest.
func (h *pagesHarvest) patience(t pageTarget) time.Duration {
	if t.known && h.st.Slow[t.url] {
		return h.Snapshots().PageTimeout / slowShare
	}
	return 0
}

// tooSlow keeps a watched page that took too long, with less patience
// next time, and sets a new link that did aside.
func (h *pagesHarvest) tooSlow(t pageTarget) {
	limit := h.Snapshots().PageTimeout
	if t.known && h.st.Slow[t.url] {
		limit /= slowShare
	}
	why := harvest.Problemf("the page %s took longer than %s to send (--page-timeout)", t.url, limit.Round(time.Millisecond))
	if h.failed == nil {
		h.failed = why
	}
	if !t.known {
		h.st.setAside(t.url, h.now)
		return
	}
	h.st.Slow[t.url] = true
	h.Warn("%s; it is read again at the next harvest, with less patience", why)
}

// maxDepth is how far links are followed. The crawl is breadth-first and
// watches at most --watch-pages, so it needs no depth of its own: a page
// four links deep on a small site is watched like one linked from home,
// and a page linked from a changed page is found whatever its depth
// (traps are bounded by the cap, the query variants and the repeated
// segments crawl leaves out). But on a site that answers every address
// with 200 ("soft 404"), a link may lead to a page that is not there,
// which links to more, so only the start page's links are taken.
func (h *pagesHarvest) maxDepth() int {
	if a := h.st.Answers200; a != nil && *a {
		return 1
	}
	return h.limit
}

// learnNotFound asks, once, for an address of the scope that cannot
// exist, to learn how the site says "not found": with a 404, or with a
// 200 whose text then marks the pages that are not there. A site that
// answers 200 is asked for a second such address, once: the lines both
// answers share, with their title, recognise its "not found" page when
// its text varies at every reading (random words, random links), once
// the lines of its pages are left out (crawl.NotFoundShape).
func (h *pagesHarvest) learnNotFound(ctx context.Context) {
	if a := h.st.Answers200; a != nil && (!*a || h.st.Shaped) || ctx.Err() != nil || !h.spend() {
		return
	}
	probe, r, err := h.probe(ctx)
	switch {
	case err == nil && r.Text != nil:
		// A "not found" page that says so is told apart by what it says.
		says := crawl.NotFound(r.Text.Title, firstLine(r.Text.Text))
		if h.st.Answers200 == nil && !says {
			h.Warn("the site answers 200 for an address it does not have (%s): only the pages its start page links to are watched", probe)
		}
		h.st.NotFoundHash = r.Text.TextHash
		answers200 := !says
		h.st.Answers200 = &answers200
		if answers200 && h.spend() {
			h.learnShape(ctx, r.Text)
		}
	case err != nil && (fetch.Gone(err) || r.Resp != nil):
		no := false
		h.st.Answers200 = &no
	}
}

// probe reads an address of the scope that cannot exist.
func (h *pagesHarvest) probe(ctx context.Context) (string, harvest.PageRead, error) {
	var b [8]byte
	rand.Read(b[:])
	probe := h.scope.URL() + "tidings-no-such-page-" + hex.EncodeToString(b[:])
	r, err := h.ReadPage(ctx, probe, nil, harvest.ReadOptions{WholeBody: true, Extract: true, Types: fetch.PageTypes})
	return probe, r, err
}

// learnShape reads a second address that cannot exist and keeps the
// shape the two answers share, less the lines of the start page when its
// text is known (a later harvest's; the first refines it with the start
// page as it reads it, see read).
func (h *pagesHarvest) learnShape(ctx context.Context, first *pagetext.Snapshot) {
	_, r, err := h.probe(ctx)
	if err != nil || r.Text == nil {
		return
	}
	h.st.Shaped = true
	h.st.NotFound = crawl.ShapeOf(first.Title, first.Text, r.Text.Title, r.Text.Text)
	if start, ok := urls.Canonical(h.col.SourceURL, true); ok {
		if p, ok := h.prev[start]; ok && p.Text != nil {
			if t, err := pagetext.Decompress(p.Text, pagetext.DefaultMaxText*4); err == nil && !h.st.NotFound.Refine(t) {
				h.st.NotFound = nil
			}
		}
	}
}

// gone counts the known pages found gone or moved so far in this harvest:
// their places are free for new pages.
func (h *pagesHarvest) gone() int {
	n := 0
	for _, known := range h.vanished {
		if known {
			n++
		}
	}
	return n + len(h.moved)
}

// readTime is when a page is read, by the harvest's clock: never the time
// of the page read before it, even within one millisecond (the precision
// a change keeps), so the order pages were read in is the order a feed
// shows them in.
func (h *pagesHarvest) readTime() time.Time {
	at := h.now.Add(time.Since(h.started)).Truncate(time.Millisecond)
	if !at.After(h.lastRead) {
		at = h.lastRead.Add(time.Millisecond)
	}
	h.lastRead = at
	return at
}
