package harvest

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"tidings/crawl"
	"tidings/db"
	"tidings/pagetext"
)

// Reading pages, for sources that list pages without saying reliably
// what changed (plain sitemaps): every page read comes out of the site
// harvest's budget of page fetches (--page-fetches), shared with the
// snapshots of other changes. With snapshots turned off (--no-snapshots)
// no page is read: a moved lastmod is trusted as an update (unless the
// dates are the build's), and a page missing from the sitemap as deleted.

// readVerdict is what reading a page said of it.
type readVerdict int

const (
	readFailed    readVerdict = iota // not read, or read but not usable: try again later
	readChanged                      // its text changed since the last snapshot
	readUnchanged                    // its text, or its validators, did not change
	readBaseline                     // read for the first time: nothing to compare with
	readElsewhere                    // it now leads to another page (a login page, say)
	readCreated                      // a new page, read for its first snapshot
)

// spend takes one page fetch from the site harvest's budget.
func (h *smHarvest) spend(ctx context.Context) bool {
	ps := h.shots
	if ps == nil || ps.stop || ps.left <= 0 || ctx.Err() != nil {
		return false
	}
	ps.left--
	return true
}

// listedRead is one page read in a harvest, to be judged by settle.
type listedRead struct {
	url     string
	listed  *db.Page // the sitemap's entry, for a page whose lastmod moved
	verdict readVerdict
	sh      *shot
	old     string // the previous snapshot's text, when there was one
	text    string // the text read now
}

// confirm reads the pages whose lastmod moved, newest first (the oldest
// checks first when the dates are the build's). Pages past the budget
// keep their old date, so they are candidates again next time.
func (h *smHarvest) confirm(ctx context.Context, cands []db.Page) error {
	if h.h.opts.Snapshots.Off {
		for _, p := range cands {
			h.set.Put(p)
			if !h.st.Stamped {
				h.record(db.Change{URL: p.URL, Kind: "updated", Datetime: h.dated(&p), Source: h.col.SourceURL, FromLastmod: p.Modified != nil})
			}
		}
		return nil
	}
	slices.SortStableFunc(cands, func(a, b db.Page) int {
		if c := h.dated(&b).Compare(h.dated(&a)); !h.st.Stamped && c != 0 {
			return c
		}
		return h.checks[a.URL].Compare(h.checks[b.URL])
	})
	todo := cands[:0:0]
	for _, p := range cands {
		if h.shots == nil || h.shots.taken[p.URL] == nil {
			todo = append(todo, p)
		}
	}
	n := min(len(todo), max(h.shotsLeft(), 0))
	prev, err := h.h.store.Snapshots(ctx, h.site.ID, urlsOf(todo[:n]))
	if err != nil {
		return err
	}
	waiting := len(todo) - n
	for i := range todo[:n] {
		if !h.spend(ctx) {
			waiting++
			continue
		}
		r := h.readPage(ctx, todo[i].URL, "updated", prev)
		r.listed = &todo[i]
		h.reads = append(h.reads, r)
	}
	if waiting > 0 {
		h.warn.add("%d pages whose sitemap date moved wait for the next harvest to be read (the limit of page fetches, --page-fetches, was reached)", waiting)
	}
	return nil
}

// dated is when a listed page changed: its lastmod, or now when it has
// none (a resource list's hash moved).
func (h *smHarvest) dated(p *db.Page) time.Time {
	if p.Modified == nil {
		return h.now
	}
	return *p.Modified
}

func (h *smHarvest) shotsLeft() int {
	if h.shots == nil || h.shots.stop {
		return 0
	}
	return h.shots.left
}

func urlsOf(pages []db.Page) []string {
	out := make([]string, len(pages))
	for i, p := range pages {
		out[i] = p.URL
	}
	return out
}

// recheck re-reads, conditionally, the pages whose dates cannot be
// trusted (none given, or the build's) and those never read, oldest
// check first and undated ones first among equals, within what is left
// of the budget: every page is seen every few harvests.
func (h *smHarvest) recheck(ctx context.Context) error {
	if h.h.opts.Snapshots.Off {
		return nil
	}
	var todo []string
	for _, u := range h.set.URLs() {
		p, _ := h.set.Page(u)
		_, checked := h.checks[u]
		if h.created[u] || h.read[u] || (p.Modified != nil && !h.st.Stamped && checked) {
			continue
		}
		if h.shots != nil && h.shots.taken[u] != nil {
			continue
		}
		todo = append(todo, u)
	}
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
	todo = todo[:min(len(todo), max(h.shotsLeft(), 0))]
	if len(todo) == 0 {
		return nil
	}
	prev, err := h.h.store.Snapshots(ctx, h.site.ID, todo)
	if err != nil {
		return err
	}
	for _, u := range todo {
		if !h.spend(ctx) {
			break
		}
		h.reads = append(h.reads, h.readPage(ctx, u, "updated", prev))
	}
	return nil
}

// readPage reads one page, conditionally on its last snapshot, and says
// what its text did. The snapshot is kept to be stored, and the shot
// lends its text diff to the page's change (see takeSnapshots). A page
// that now leads elsewhere, or says it is not found, keeps its old
// snapshot.
func (h *smHarvest) readPage(ctx context.Context, u, kind string, prev map[string]db.Snapshot) listedRead {
	p, had := prev[u]
	h.read[u] = true
	sh, snap := h.h.takeShot(ctx, h.CollectionRun, h.shots, u, kind, p, had)
	r := listedRead{url: u, sh: sh}
	if h.checked == nil {
		h.checked = map[string]time.Time{}
	}
	switch {
	case snap == nil && sh.textChange == db.TextUnchanged:
		h.checked[u] = h.now
		h.shots.taken[u] = sh
		r.verdict = readUnchanged
		return r
	case snap == nil:
		r.verdict = readFailed
		return r
	}
	h.checked[u] = h.now
	if !sameAddress(snap.FinalURL, u) {
		h.warn.add("the page %s now leads to %s; it was not compared", u, snap.FinalURL)
		r.verdict = readElsewhere
		return r
	}
	if crawl.NotFound(snap.Title, "") {
		h.warn.add("the page %s says it is not found (%q); it was not compared", u, pagetext.Clip(snap.Title, 80))
		r.verdict = readElsewhere
		return r
	}
	h.shots.taken[u] = sh
	h.snapshots = append(h.snapshots, *snap)
	r.text, _ = pagetext.Decompress(snap.Text, maxTextRead)
	switch {
	case kind == "created":
		r.verdict = readCreated
	case sh.textChange == db.TextChanged:
		r.verdict = readChanged
		r.old, _ = pagetext.Decompress(p.Text, maxTextRead)
	case sh.textChange == db.TextUnchanged:
		r.verdict = readUnchanged
	default:
		r.verdict = readBaseline
	}
	return r
}

// readCreated reads the pages new in this harvest, newest first, as
// takeSnapshots would: their text shows what lines the whole site
// gained (a navigation naming them).
func (h *smHarvest) readCreated(ctx context.Context) error {
	if h.h.opts.Snapshots.Off || len(h.created) == 0 {
		return nil
	}
	var todo []string
	for i := range h.changes {
		c := &h.changes[i]
		if c.Kind == "created" && h.created[c.URL] && !c.History && !h.read[c.URL] {
			todo = append(todo, c.URL)
		}
	}
	slices.Reverse(todo)
	todo = todo[:min(len(todo), max(h.shotsLeft(), 0))]
	for _, u := range todo {
		if !h.spend(ctx) {
			break
		}
		h.reads = append(h.reads, h.readPage(ctx, u, "created", nil))
	}
	return nil
}

// maxTextRead bounds a snapshot's text decompressed to be compared.
const maxTextRead = 4 * pagetext.DefaultMaxText

// settle judges the pages read: a text change made only of lines most of
// the site's pages share (a navigation listing every page, a footer with
// the build's date) is no change. It then records the updates: a page
// whose text changed; a page whose lastmod moved and was read for the
// first time, on the sitemap's word, unless its dates are the build's.
func (h *smHarvest) settle(ctx context.Context) {
	shared := h.sharedLines(ctx)
	for _, r := range h.reads {
		if r.verdict == readChanged {
			if d := pagetext.CompareBesides(r.old, r.text, shared); d.Unchanged() {
				r.verdict = readUnchanged
				r.sh.textChange, r.sh.diff = db.TextUnchanged, ""
			} else if b, err := json.Marshal(d); err == nil && shared.Len() > 0 {
				// The entry shows the edit, not the navigation.
				r.sh.diff = string(b)
			}
		}
		if r.listed != nil && r.verdict != readFailed {
			h.set.Put(*r.listed)
		}
		at := h.now
		if r.listed != nil && !h.st.Stamped {
			at = h.dated(r.listed)
		}
		switch {
		case r.verdict == readChanged:
			h.record(db.Change{URL: r.url, Kind: "updated", Datetime: at, Source: h.col.SourceURL})
		case r.verdict == readBaseline && r.listed != nil && !h.st.Stamped:
			h.record(db.Change{URL: r.url, Kind: "updated", Datetime: at, Source: h.col.SourceURL, FromLastmod: r.listed.Modified != nil})
		}
	}
}
