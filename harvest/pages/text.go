package pages

import (
	"context"
	"maps"
	"slices"

	"tidings/db"
	"tidings/harvest"
	"tidings/harvest/pageset"
	"tidings/pagetext"
)

// minPagesForSiteLines: with fewer pages, no line is the site's rather
// than a page's.
const minPagesForSiteLines = 3

// siteLines are the lines more than half of the site's pages have in
// their text before or after this harvest (see pagetext.SharedLines).
// olds are the previous texts of the pages read, by address.
func (h *pagesHarvest) siteLines(limit int) (lines pagetext.LineSet, olds map[string]string) {
	olds = map[string]string{}
	if h.first {
		return pagetext.LineSet{}, olds // every page is already seen: nothing is compared
	}
	count := pagetext.NewSharedLines()
	fresh := map[string]string{}
	for _, r := range h.reads {
		fresh[r.id] = r.snap.Text
	}
	for _, u := range h.set.URLs() {
		if h.vanished[u] {
			continue
		}
		old := ""
		if p, ok := h.prev[u]; ok && p.Text != nil {
			// An unreadable snapshot counts as empty; the page's own
			// comparison says so.
			if t, err := pagetext.Decompress(p.Text, limit); err == nil {
				old = t
				if _, ok := fresh[u]; ok {
					olds[u] = t
				}
			}
		}
		count.Add(old, fresh[u])
		delete(fresh, u)
	}
	for _, t := range fresh {
		count.Add(t)
	}
	if count.Pages() < minPagesForSiteLines {
		return pagetext.LineSet{}, olds
	}
	lines = count.Lines(func(have, pages int) bool { return have*2 > pages })
	var pairs [][2]string
	for _, r := range h.reads {
		if old, ok := olds[r.id]; ok {
			pairs = append(pairs, [2]string{old, r.snap.Text})
		}
	}
	h.chrome = pagetext.GoneChrome(pairs, lines, minPagesForSiteLines)
	return lines.Union(pagetext.NewLineSet(slices.Collect(maps.Keys(h.chrome))...)), olds
}

// noise is the site's noise (CollectionRun.Noise) and what this harvest
// learns: the titles of its pages, whose lines in a list of pages say
// nothing of the page they are on (a home page's "recently updated"), and
// the shapes of lines that changed only in their numbers or dates on many
// pages at once (a release number in every navbar, a visitor counter).
func (h *pagesHarvest) noise(sl pagetext.LineSet, olds map[string]string) *pagetext.Noise {
	n := h.Noise()
	for _, u := range h.set.URLs() {
		if p, ok := h.set.Stored(u); ok {
			n.AddTitles(p.Title)
		}
	}
	var pairs [][2]string
	for _, r := range h.reads {
		n.AddTitles(r.snap.Title)
		if old, ok := olds[r.id]; ok && old != r.snap.Text {
			pairs = append(pairs, [2]string{sl.Drop(old), sl.Drop(r.snap.Text)})
		}
	}
	learned := pagetext.LearnShapes(pairs, minPagesForSiteLines)
	maps.Copy(learned, pagetext.ChromeShapes(h.chrome))
	h.Learned(learned)
	n.Learn(learned)
	return n
}

// judge compares each page read with its snapshot, the site's lines left
// out, and records the changes through the page-set differ: a page whose
// text changed is updated, a new page created (already seen on the first
// harvest, or when a person added it), and a known page that is gone (404,
// 410, a "not found" page) deleted. A page that answered with its text
// unchanged, or was not read, is still there, linked to or not.
func (h *pagesHarvest) judge(ctx context.Context) {
	limit := max(h.Snapshots().MaxText, pagetext.DefaultMaxText) * 4
	sl, olds := h.siteLines(limit)
	noise := h.noise(sl, olds)
	// The widgets first: a slot is held by lines the site's may be.
	clean := func(t string) string { return sl.Drop(noise.Drop(t)) }
	h.readAgain(ctx, clean, noise, olds)
	shots := map[string]*reading{}
	for _, r := range h.reads {
		shots[r.id] = h.compare(r, clean, noise, olds, limit)
	}
	h.foldListings(shots, sl, noise, olds)
	for _, r := range h.reads {
		sh := shots[r.id]
		h.ShareText(r.id, sh.title, sh.textChange, sh.diff)
		h.res.Snapshots = append(h.res.Snapshots, r.stored)
	}
	doc := h.set.Read(h.now, pageset.Rules{Complete: true, Compare: func(_, p db.Page) pageset.Verdict {
		if sh := shots[p.URL]; sh != nil && sh.textChange == db.TextChanged {
			return pageset.Revised
		}
		return pageset.Same
	}})
	for _, u := range h.set.URLs() {
		if !h.vanished[u] {
			doc.List(u)
		}
	}
	for _, r := range h.reads {
		if c, ok := doc.Add(db.Page{URL: r.id, Hash: r.snap.TextHash, Title: r.snap.Title}); ok {
			c.At = r.at
			h.recordPage(c, shots[r.id])
		}
	}
	for _, c := range doc.Commit() {
		h.recordPage(c, nil)
	}
}

// compare says what a page read gained and lost since its snapshot, with
// clean leaving out the site's lines and its noise. A new page shows its
// opening text as added, unless it is already seen (the first harvest's,
// or one a person added). A known page read for the first time is the
// baseline. olds are the previous texts siteLines read.
func (h *pagesHarvest) compare(r pageRead, clean func(string) string, noise *pagetext.Noise, olds map[string]string, limit int) *reading {
	sh := &reading{title: r.snap.Title}
	if !r.known {
		if r.byHand || h.first {
			h.history[r.id] = true
		} else if r.snap.HasText() {
			sh.textChange, sh.diff = textDiff("", clean(r.snap.Text), r.snap.TextHash)
		}
		return sh
	}
	prev, had := h.prev[r.id]
	if !had || prev.Text == nil || !r.snap.HasText() {
		return sh
	}
	if known, ok := h.set.Stored(r.id); ok && known.Hash == r.snap.TextHash {
		sh.textChange = db.TextUnchanged
		return sh
	}
	old, ok := olds[r.id]
	if !ok {
		var err error
		if old, err = pagetext.Decompress(prev.Text, limit); err != nil {
			return sh
		}
	}
	now := r.snap.Text
	if noise.Rebase(prev.FetchedAt) {
		old, now = pagetext.Rebased(clean(old), clean(now), clean(r.snap.Unremoved))
	}
	if old == now {
		sh.textChange = db.TextUnchanged
		return sh
	}
	sh.textChange, sh.diff = textDiff(clean(old), clean(now), r.snap.TextHash)
	return sh
}

// textDiff is what a page's text gained and lost, in the stored form
// (harvest.StoredDiff); hash is the new text's. A new page (old "")
// shows its opening lines: its whole text would only repeat its
// snapshot.
func textDiff(old, new, hash string) (string, string) {
	d := pagetext.Compare(old, new)
	if old == "" {
		d = pagetext.Opening(new)
	}
	if d.Unchanged() {
		return db.TextUnchanged, ""
	}
	stored, err := harvest.StoredDiff(d, len(new), hash)
	if err != nil {
		return db.TextUnknown, ""
	}
	return db.TextChanged, stored
}

func (h *pagesHarvest) recordPage(c pageset.Change, sh *reading) {
	ch := db.Change{URL: c.Page.URL, Kind: c.Kind, Datetime: c.At, Source: c.Page.URL, Title: c.Page.Title}
	if sh != nil {
		ch.TextChange, ch.Diff = sh.textChange, sh.diff
	}
	// A page found by the first crawl, or one a person added, is already
	// seen.
	ch.History = c.Kind == "created" && h.history[c.Page.URL]
	h.Record(ch)
}

// reading is what a page read says of its latest change.
type reading struct {
	title      string
	textChange string
	diff       string
}
