package arc

import (
	"time"

	arcdoc "tidings/arc"
	"tidings/db"
	"tidings/harvest/pageset"
)

// applyFull diffs a full sitemap against the known pages, as of at (its
// generated_at, or when it was read if that did not move): new URLs are
// created, changed ones updated, and known pages it no longer lists are
// deleted.
func (h *arcHarvest) applyFull(sm *arcdoc.Sitemap, src string, at time.Time) {
	doc := h.known.Read(at, pageset.Rules{Complete: true})
	for _, p := range sm.Pages {
		// Listed, even when apply skips it: only silence is a deletion.
		doc.List(p.URL)
		h.apply(doc, p, src)
	}
	// A page listed but invalid has not vanished.
	h.skipped(doc, sm, src)
	for _, c := range doc.Commit() {
		h.Record(db.Change{URL: c.Page.URL, Kind: c.Kind, Datetime: c.At, Source: src})
	}
}

// applyDelta applies a delta feed: its silence about a page says nothing.
func (h *arcHarvest) applyDelta(sm *arcdoc.Sitemap, src string) {
	doc := h.known.Read(sm.GeneratedAt, pageset.Rules{})
	for _, p := range sm.Pages {
		h.apply(doc, p, src)
	}
	h.skipped(doc, sm, src)
	doc.Commit()
}

// skipped warns of the invalid pages of a document and counts them as
// listed. An invalid entry that hints the page is private still forgets
// the page.
func (h *arcHarvest) skipped(doc *pageset.Doc, sm *arcdoc.Sitemap, src string) {
	if sm.SkippedUnlisted > 0 {
		h.Warn("in %s, %d more page entries are not valid pages and were skipped", src, sm.SkippedUnlisted)
	}
	for _, s := range sm.Skipped {
		h.Find(pageInvalid(src, s), "in %s, %s; it was skipped", src, s)
		if s.URL == "" {
			continue
		}
		doc.List(s.URL)
		if s.Private {
			h.makePrivate(doc, s.URL)
		}
	}
}

// apply compares one page with what is known of it (see pageDoc.add). A
// change's time is the page's lastmod (never later than the document);
// where that is missing or unchanged, the document's time.
func (h *arcHarvest) apply(doc *pageset.Doc, p arcdoc.Page, src string) {
	if !h.OnSite(p.URL, src) {
		h.Warn("in %s, a page on another host than the site was skipped", src)
		return
	}
	if p.Private() {
		h.makePrivate(doc, p.URL)
		return
	}
	mod := p.Lastmod
	if mod != nil && mod.After(doc.At()) {
		at := doc.At()
		mod = &at
	}
	// Titles are not kept with ARC pages: a deleted page's entry is
	// untitled, as it always was.
	c, ok := doc.Add(db.Page{URL: p.URL, Modified: mod, Hash: pageset.Hash(p.Checksum)})
	if ok {
		h.Record(db.Change{URL: p.URL, Kind: c.Kind, Datetime: c.At, Source: src, Title: p.Title, Summary: p.Summary, Tags: p.Tags})
	}
}

// makePrivate keeps a page the site wants out of indexes out of the store:
// no page row, and its earlier changes are withdrawn.
func (h *arcHarvest) makePrivate(doc *pageset.Doc, u string) {
	doc.Forget(u)
	h.withdraw = append(h.withdraw, u)
}
