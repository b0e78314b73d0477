package listed

import (
	"context"
	"maps"
	"slices"
	"time"

	"tidings/crawl"
	"tidings/db"
	"tidings/harvest"
	"tidings/harvest/pageset"
	"tidings/pagetext"
)

// Reading pages, for a list that says a page moved without
// saying how: every page read comes out of the site harvest's budget of
// page fetches (--page-fetches), shared with the snapshots of other
// changes. With snapshots turned off (--no-snapshots) no page is read: a
// moved lastmod or hash is trusted as an update (unless the dates are the
// build's), and a page missing from the list as deleted.

// readVerdict is what reading a page said of it.
type readVerdict int

const (
	readFailed    readVerdict = iota // not read, or read but not usable: try again later
	readChanged                      // its text changed since the last snapshot
	readUnchanged                    // its text, or its validators, did not change
	readBaseline                     // read for the first time: nothing to compare with
	readElsewhere                    // it now leads to another page (a login page, say)
	readCreated                      // a new page, read for its first snapshot
	readListing                      // its text changed only to list pages of news (foldListings)
)

// maxTextRead bounds a snapshot's text decompressed to be compared.
const maxTextRead = 4 * pagetext.DefaultMaxText

// sharedSample is how many stored snapshots of the site's other pages
// tell which lines most pages share.
const sharedSample = 16

// pageRead is one page read in a harvest, to be judged by settle.
type pageRead struct {
	url     string
	listed  *db.Page // the list's entry, for a page whose lastmod or hash moved
	verdict readVerdict
	text    *harvest.PageText
	old     string // the previous snapshot's text, when there was one
	now     string // the text read now
	snap    *db.Snapshot
}

// confirm reads the pages whose lastmod or hash moved, newest first (when
// the dates are the build's, the pages read before first, oldest check
// first: only they can confirm a change, the others give a baseline). Pages past the
// budget keep their old version, so they are candidates again next time.
func (h *Harvest) confirm(ctx context.Context, cands []db.Page) error {
	if !h.ReadsPages() {
		for _, p := range cands {
			h.set.Put(p)
			if !h.st.Stamped {
				h.Record(db.Change{URL: p.URL, Kind: "updated", Datetime: h.dated(&p), Source: h.col.SourceURL, FromLastmod: p.Modified != nil})
			}
		}
		return nil
	}
	slices.SortStableFunc(cands, func(a, b db.Page) int {
		if c := h.dated(&b).Compare(h.dated(&a)); !h.st.Stamped && c != 0 {
			return c
		}
		ca, cb := h.checks[a.URL], h.checks[b.URL]
		switch {
		case ca.IsZero() && !cb.IsZero():
			return 1
		case cb.IsZero() && !ca.IsZero():
			return -1
		}
		return ca.Compare(cb)
	})
	todo := cands[:0:0]
	for _, p := range cands {
		if !h.HasPageText(p.URL) {
			todo = append(todo, p)
		}
	}
	read, err := h.readInTurn(ctx, urlsOf(todo), "updated", func(i int, r pageRead) {
		r.listed = &todo[i]
		h.reads = append(h.reads, r)
	})
	if err != nil {
		return err
	}
	h.st.Waiting = nil
	for _, p := range todo[read:] {
		if len(h.st.Waiting) < maxWaiting {
			h.st.Waiting = append(h.st.Waiting, waiting{URL: p.URL, Modified: p.Modified, Hash: p.Hash})
		}
	}
	if n := len(h.st.Waiting); n > 0 {
		h.Warn("%d pages whose sitemap date moved wait for the next harvest to be read (the limit of page fetches, --page-fetches, was reached)", n)
	}
	return nil
}

// dated is when a listed page changed: its lastmod, or now when it has
// none (its hash moved).
func (h *Harvest) dated(p *db.Page) time.Time {
	if p.Modified == nil {
		return h.now
	}
	return *p.Modified
}

// readChunk is how many pages' snapshots are loaded at once to be read:
// a list may name 50,000 pages, of which the budget reads a few hundred.
const readChunk = 100

// readInTurn reads the pages of urls in order, conditionally on their
// snapshots, while the site harvest's budget of page fetches lasts (a
// page that answers 304 gives its fetch back, see harvest), handing each
// read to each; it returns how many were read.
func (h *Harvest) readInTurn(ctx context.Context, urls []string, kind string, each func(i int, r pageRead)) (int, error) {
	for start := 0; start < len(urls); start += readChunk {
		if h.PageFetchesLeft() <= 0 {
			return start, nil
		}
		end := min(start+readChunk, len(urls))
		prev, err := h.StoredSnapshots(ctx, urls[start:end])
		if err != nil {
			return start, err
		}
		for i := start; i < end; i++ {
			if ctx.Err() != nil || !h.TakePageFetch() {
				return i, nil
			}
			each(i, h.readPage(ctx, urls[i], kind, prev))
		}
	}
	return len(urls), nil
}

func urlsOf(pages []db.Page) []string {
	out := make([]string, len(pages))
	for i, p := range pages {
		out[i] = p.URL
	}
	return out
}

// RecheckDated is how long a page whose own date did not move goes
// unread: many sites edit a page without moving its <lastmod> (or its
// hash in a resource list), and such an edit is found when the page is
// read again.
const RecheckDated = 7 * 24 * time.Hour

// recheck re-reads, conditionally, the pages whose dates cannot be
// trusted (none given, or the build's), those never read, and those
// whose own date did not move for RecheckDated, oldest check first and
// undated ones first among equals, within what is left of the budget:
// every page is seen every few harvests, and every dated one at least
// every RecheckDated when the budget allows.
func (h *Harvest) recheck(ctx context.Context) error {
	if !h.ReadsPages() {
		return nil
	}
	var todo, early []string
	trusted := 0
	for _, u := range h.set.URLs() {
		p, _ := h.set.Page(u)
		at, checked := h.checks[u]
		dated := p.Modified != nil && !h.st.Stamped && checked
		if dated {
			trusted++
		}
		if h.created[u] || h.read[u] || h.HasPageText(u) {
			continue
		}
		// An hour's slack: harvests a day apart come a little early.
		if dated && h.now.Sub(at) < RecheckDated-time.Hour {
			early = append(early, u)
			continue
		}
		todo = append(todo, u)
	}
	todo = append(todo, h.spread(trusted, len(todo), early)...)
	dated := func(u string) bool { p, _ := h.set.Page(u); return p.Modified != nil }
	slices.SortStableFunc(todo, func(a, b string) int {
		if c := h.checks[a].Compare(h.checks[b]); c != 0 {
			return c
		}
		switch da, db := dated(a), dated(b); {
		case da && !db:
			return 1
		case db && !da:
			return -1
		}
		return 0
	})
	_, err := h.readInTurn(ctx, todo, "updated", func(_ int, r pageRead) { h.reads = append(h.reads, r) })
	return err
}

// spread picks, of the dated pages not yet due (early), those to read
// ahead of time, the longest unread first: as many as make the dated
// pages' share of this harvest, trusted × the time since the last harvest
// ÷ RecheckDated, less the due ones. Without it the pages read together at
// the follow all come due together a week later, and that harvest asks a
// site of 2,000 pages for a thousand of them in one go (250 s at the
// default host delay); with it each harvest asks for its share, and every
// page is still read within RecheckDated.
func (h *Harvest) spread(trusted, due int, early []string) []string {
	if h.col.LastHarvestAt == nil || len(early) == 0 {
		return nil
	}
	since := min(h.now.Sub(*h.col.LastHarvestAt), RecheckDated)
	if since <= 0 {
		return nil
	}
	share := int((int64(trusted)*int64(since) + int64(RecheckDated) - 1) / int64(RecheckDated))
	n := min(share-due, len(early))
	if n <= 0 {
		return nil
	}
	slices.SortStableFunc(early, func(a, b string) int { return h.checks[a].Compare(h.checks[b]) })
	return early[:n]
}

// readPage reads one page, conditionally on its last snapshot, and says
// what its text did. The snapshot is kept to be stored, and the page's
// change shows what was read (see harvest.CollectionRun.UsePageText). A
// page that now leads elsewhere, or says it is not found, keeps its old
// snapshot.
func (h *Harvest) readPage(ctx context.Context, u, kind string, prev map[string]db.Snapshot) pageRead {
	p, had := prev[u]
	if !had {
		// Read the way the site's other pages were: a new page with a
		// sentence of its own would otherwise fall back to its whole
		// body, navigation and footer, which no other page's text has to
		// be told apart from.
		p.Method = h.siteMethod
	}
	h.read[u] = true
	t, snap := h.ReadPageText(ctx, u, kind, p, had)
	r := pageRead{url: u, text: t}
	if h.res.Checked == nil {
		h.res.Checked = map[string]time.Time{}
	}
	switch {
	case snap == nil && t.TextChange() == db.TextUnchanged:
		h.res.Checked[u] = h.now
		h.UsePageText(u, t)
		r.verdict = readUnchanged
		return r
	case snap == nil:
		r.verdict = readFailed
		return r
	}
	h.res.Checked[u] = h.now
	if !pageset.SameAddress(snap.FinalURL, u) {
		h.Warn("the page %s now leads to %s; it was not compared", u, snap.FinalURL)
		r.verdict = readElsewhere
		return r
	}
	if crawl.NotFound(snap.Title, "") {
		h.Warn("the page %s says it is not found (%q); it was not compared", u, pagetext.Clip(snap.Title, 80))
		r.verdict = readElsewhere
		return r
	}
	h.UsePageText(u, t)
	h.res.Snapshots = append(h.res.Snapshots, *snap)
	r.snap = snap
	r.now, _ = pagetext.Decompress(snap.Text, maxTextRead)
	switch {
	case kind == "created":
		r.verdict = readCreated
	case t.TextChange() == db.TextChanged:
		r.verdict = readChanged
		r.old, _ = pagetext.Decompress(p.Text, maxTextRead)
	case t.TextChange() == db.TextUnchanged:
		r.verdict = readUnchanged
	default:
		r.verdict = readBaseline
	}
	return r
}

// readCreated reads the pages new in this harvest, newest first, as the
// snapshots of changes would: their text shows what lines the whole site
// gained (a navigation naming them).
func (h *Harvest) readCreated(ctx context.Context) error {
	if !h.ReadsPages() || len(h.created) == 0 {
		return nil
	}
	var todo []string
	for _, c := range h.Changes() {
		if c.Kind == "created" && h.created[c.URL] && !c.History && !h.read[c.URL] {
			todo = append(todo, c.URL)
		}
	}
	slices.Reverse(todo)
	todo = todo[:min(len(todo), max(h.PageFetchesLeft(), 0))]
	if len(todo) > 0 {
		h.siteMethod = h.mostUsedMethod(ctx)
	}
	for _, u := range todo {
		if ctx.Err() != nil || !h.TakePageFetch() {
			break
		}
		h.reads = append(h.reads, h.readPage(ctx, u, "created", nil))
	}
	return nil
}

// settle judges the pages read: a text change made only of lines most of
// the site's pages share (a navigation listing every page, a footer with
// the build's date) is no change. It then records the updates: a page
// whose text changed; a page whose lastmod or hash moved and was read for
// the first time, on the list's word, unless its dates are the build's.
func (h *Harvest) settle(ctx context.Context) {
	shared, titles := h.sharedLines(ctx)
	var pairs [][2]string
	for _, r := range h.reads {
		if r.verdict == readChanged {
			pairs = append(pairs, [2]string{r.old, r.now})
		}
	}
	gone := pagetext.GoneChrome(pairs, shared, minShapePages)
	shared = shared.Union(pagetext.NewLineSet(slices.Collect(maps.Keys(gone))...))
	noise := h.noise(shared, titles)
	chrome := pagetext.ChromeShapes(gone)
	h.Learned(chrome)
	noise.Learn(chrome)
	// The widgets first: a slot is held by lines the site's may be.
	clean := func(t string) string { return shared.Drop(noise.Drop(t)) }
	h.readAgain(ctx, clean, noise)
	for i := range h.reads {
		r := &h.reads[i]
		if r.verdict == readChanged {
			if d := pagetext.Compare(clean(r.old), clean(r.now)); d.Unchanged() {
				r.verdict = readUnchanged
				r.text.SetTextChange(db.TextUnchanged, "")
			} else if stored, err := harvest.StoredDiff(d, len(r.now), pagetext.TextHash(r.now)); err == nil {
				// The entry shows the edit, not the navigation.
				r.text.SetTextChange(r.text.TextChange(), stored)
			}
		}
	}
	h.foldListings(shared, noise)
	h.judgeStamp()
	for _, r := range h.reads {
		if r.listed != nil && r.verdict != readFailed {
			h.set.Put(*r.listed)
		}
		at := h.now
		if r.listed != nil && !h.st.Stamped {
			at = h.dated(r.listed)
		}
		switch {
		case r.verdict == readChanged:
			h.Record(db.Change{URL: r.url, Kind: "updated", Datetime: at, Source: h.col.SourceURL})
		case r.verdict == readBaseline && r.listed != nil && !h.st.Stamped:
			h.Record(db.Change{URL: r.url, Kind: "updated", Datetime: at, Source: h.col.SourceURL, FromLastmod: r.listed.Modified != nil})
		}
	}
}

// noise is the site's noise (CollectionRun.Noise) and what this harvest
// learns: the titles of the pages, whose lines in a list of pages say
// nothing of the page they are on, and the shapes of lines that changed
// only in their numbers or dates on many pages at once (a release number
// in every navbar).
func (h *Harvest) noise(shared pagetext.LineSet, titles []string) *pagetext.Noise {
	n := h.Noise()
	n.AddTitles(titles...)
	for _, u := range h.set.StoredURLs() {
		if p, ok := h.set.Stored(u); ok && p.Title != "" {
			n.AddTitles(p.Title)
		}
	}
	var pairs [][2]string
	for _, r := range h.reads {
		if r.text != nil {
			n.AddTitles(r.text.Title())
		}
		if r.verdict == readChanged {
			pairs = append(pairs, [2]string{shared.Drop(r.old), shared.Drop(r.now)})
		}
	}
	learned := pagetext.LearnShapes(pairs, minShapePages)
	h.Learned(learned)
	n.Learn(learned)
	return n
}

// minShapePages: a line's shape is the site's when it changed on this
// many pages at once (and on a quarter of those compared).
const minShapePages = 3

// sharedLines returns the lines shared by a quarter of the texts on
// either side of this harvest, two at least: those read now, and those
// read before (of the pages read now, and a sample of the others'). A
// generated site's navigation and footer are such lines; on one side
// alone, since a new page or a new build changes them on every page at
// once.
func (h *Harvest) sharedLines(ctx context.Context) (lines pagetext.LineSet, titles []string) {
	var before, after []string
	changed := map[string]bool{}
	for _, r := range h.reads {
		switch r.verdict {
		case readChanged:
			changed[r.url] = true
			before, after = append(before, r.old), append(after, r.now)
		case readCreated:
			after = append(after, r.now)
		}
	}
	if len(changed) == 0 {
		return pagetext.LineSet{}, nil
	}
	var sample []string
	urls := h.set.StoredURLs()
	step := max(len(urls)/sharedSample, 1)
	for i := 0; i < len(urls) && len(sample) < sharedSample; i += step {
		if !changed[urls[i]] {
			sample = append(sample, urls[i])
		}
	}
	if snaps, err := h.StoredSnapshots(ctx, sample); err == nil {
		for _, s := range snaps {
			titles = append(titles, s.Title)
			if t, err := pagetext.Decompress(s.Text, maxTextRead); err == nil && t != "" {
				before = append(before, t)
			}
		}
	}
	return pagetext.QuarterShared(before).Union(pagetext.QuarterShared(after)), titles
}

// judgeStamp learns from the pages read whether the list's dates are the
// pages' own: when most pages whose date moved and that could be compared
// changed, the dates say what changed, whatever the list's look suggested
// (a site edited all at once, pages sharing a date); when most did not,
// the dates are the build's.
func (h *Harvest) judgeStamp() {
	changed, same := 0, 0
	for _, r := range h.reads {
		if r.listed == nil {
			continue
		}
		switch r.verdict {
		case readChanged:
			changed++
		case readUnchanged:
			same++
		}
	}
	const least = 2
	switch {
	case changed+same < least:
	case changed*2 >= changed+same:
		h.st.Stamped = false
	case same >= 3:
		h.st.Stamped = true
	}
}

// mostUsedMethod is how most of a sample of the collection's pages were
// read (their article, or their whole body); "" when none was.
func (h *Harvest) mostUsedMethod(ctx context.Context) string {
	urls := h.set.StoredURLs()
	var sample []string
	step := max(len(urls)/sharedSample, 1)
	for i := 0; i < len(urls) && len(sample) < sharedSample; i += step {
		sample = append(sample, urls[i])
	}
	snaps, err := h.StoredSnapshots(ctx, sample)
	if err != nil {
		return ""
	}
	count := map[string]int{}
	best := ""
	for _, s := range snaps {
		if s.Method == "" {
			continue
		}
		count[s.Method]++
		if count[s.Method] > count[best] {
			best = s.Method
		}
	}
	return best
}
