package harvest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"time"

	"tidings/arc"
	"tidings/db"
	"tidings/harvest/pageset"
)

// maxHashLen: a longer ai_checksum is stored as its digest.
const maxHashLen = 128

// applyFull diffs a full sitemap against the known pages, as of at (its
// generated_at, or when it was read if that did not move): new URLs are
// created, changed ones updated, and known pages it no longer lists are
// deleted.
func (h *arcHarvest) applyFull(sm *arc.Sitemap, src string, at time.Time) {
	doc := h.known.Read(at, pageset.Rules{Complete: true})
	for _, p := range sm.Pages {
		// Listed, even when apply skips it: only silence is a deletion.
		doc.List(p.URL)
		h.apply(doc, p, src)
	}
	// A page listed but invalid has not vanished.
	h.skipped(doc, sm, src)
	for _, c := range doc.Commit() {
		h.record(db.Change{URL: c.Page.URL, Kind: c.Kind, Datetime: c.At, Source: src})
	}
}

// applyDelta applies a delta feed: its silence about a page says nothing.
func (h *arcHarvest) applyDelta(sm *arc.Sitemap, src string) {
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
func (h *arcHarvest) skipped(doc *pageset.Doc, sm *arc.Sitemap, src string) {
	if sm.SkippedUnlisted > 0 {
		h.warn.add("in %s, %d more page entries are not valid pages and were skipped", src, sm.SkippedUnlisted)
	}
	for _, s := range sm.Skipped {
		h.warn.add("in %s, %s; it was skipped", src, s)
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
func (h *arcHarvest) apply(doc *pageset.Doc, p arc.Page, src string) {
	if !h.onSite(p.URL, src) {
		h.warn.add("in %s, a page on another host than the site was skipped", src)
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
	c, ok := doc.Add(db.Page{URL: p.URL, Modified: mod, Hash: hashOf(p.Checksum)})
	if ok {
		h.record(db.Change{URL: p.URL, Kind: c.Kind, Datetime: c.At, Source: src, Title: p.Title, Summary: p.Summary, Tags: p.Tags})
	}
}

// makePrivate keeps a page the site wants out of indexes out of the store:
// no page row, and its earlier changes are withdrawn.
func (h *arcHarvest) makePrivate(doc *pageset.Doc, u string) {
	doc.Forget(u)
	h.withdraw = append(h.withdraw, u)
}

// onSite: a sitemap speaks only for pages on its own host or the site's
// (www. or not), so that no site can put entries about someone else's
// pages into its feed.
func (h *arcHarvest) onSite(page, src string) bool {
	pu, err := url.Parse(page)
	if err != nil {
		return false
	}
	host := bareHost(pu.Hostname())
	for _, other := range []string{src, h.site.URL} {
		if ou, err := url.Parse(other); err == nil && bareHost(ou.Hostname()) == host {
			return true
		}
	}
	return false
}

func bareHost(h string) string { return strings.TrimPrefix(strings.ToLower(h), "www.") }

// hashOf is what is stored of an ai_checksum.
func hashOf(sum string) string {
	sum = strings.TrimSpace(sum)
	if len(sum) <= maxHashLen {
		return sum
	}
	d := sha256.Sum256([]byte(sum))
	return "sha256-of-checksum:" + hex.EncodeToString(d[:])
}
