package harvest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"

	"tidings/arc"
	"tidings/db"
)

// maxHashLen: a longer ai_checksum is stored as its digest.
const maxHashLen = 128

// applyFull diffs a full sitemap against the known pages: new URLs are
// created, changed ones updated, and known pages it no longer lists are
// deleted.
func (h *arcHarvest) applyFull(sm *arc.Sitemap, src string) {
	listed := make(map[string]bool, len(sm.Pages))
	for _, p := range sm.Pages {
		listed[p.URL] = true
		h.apply(sm, p, src)
	}
	for _, s := range h.skipped(sm, src) {
		// A page listed but invalid has not vanished.
		listed[s] = true
	}
	for u, k := range h.known {
		if listed[u] {
			continue
		}
		if k.Modified != nil && k.Modified.After(sm.GeneratedAt) {
			// Changed (by a delta) after this sitemap was generated: its
			// absence here is old news.
			continue
		}
		h.record(db.Change{URL: u, Kind: "deleted", Datetime: sm.GeneratedAt, Source: src})
		h.forget(u)
	}
}

// skipped warns of the invalid pages of a document and returns their URLs.
// An invalid entry that hints the page is private still forgets the page.
func (h *arcHarvest) skipped(sm *arc.Sitemap, src string) []string {
	var urls []string
	for _, s := range sm.Skipped {
		h.warn.add("in %s, %s; it was skipped", src, s)
		if s.URL == "" {
			continue
		}
		urls = append(urls, s.URL)
		if s.Private {
			h.makePrivate(s.URL)
		}
	}
	return urls
}

// apply compares one page with what is known of it. A change's time is
// the page's lastmod (never later than the document); where that is
// missing or unchanged, the document's generated_at.
func (h *arcHarvest) apply(sm *arc.Sitemap, p arc.Page, src string) {
	if !h.onSite(p.URL, src) {
		h.warn.add("in %s, a page on another host than the site was skipped", src)
		return
	}
	if p.Private() {
		h.makePrivate(p.URL)
		return
	}
	mod := p.Lastmod
	if mod != nil && mod.After(sm.GeneratedAt) {
		g := sm.GeneratedAt
		mod = &g
	}
	hash := hashOf(p.Checksum)
	change := db.Change{URL: p.URL, Source: src, Title: p.Title, Summary: p.Summary, Tags: p.Tags, Datetime: sm.GeneratedAt}
	k, known := h.known[p.URL]
	if !known {
		change.Kind = "created"
		if mod != nil {
			change.Datetime = *mod
		}
		h.record(change)
		h.set(db.Page{URL: p.URL, Modified: mod, Hash: hash})
		return
	}
	if mod != nil && k.Modified != nil && mod.Before(*k.Modified) {
		// Older than what a newer document said: stale.
		return
	}
	modChanged := mod != nil && k.Modified != nil && !mod.Equal(*k.Modified)
	sumChanged := hash != "" && k.Hash != "" && hash != k.Hash
	if modChanged || sumChanged {
		change.Kind = "updated"
		if modChanged {
			change.Datetime = *mod
		}
		h.record(change)
	}
	next := k
	if mod != nil {
		next.Modified = mod
	}
	if hash != "" {
		next.Hash = hash
	}
	if !samePage(next, k) {
		h.set(next)
	}
}

func samePage(a, b db.Page) bool {
	if a.Hash != b.Hash || (a.Modified == nil) != (b.Modified == nil) {
		return false
	}
	return a.Modified == nil || a.Modified.Equal(*b.Modified)
}

func (h *arcHarvest) set(p db.Page) {
	h.known[p.URL] = p
	h.changed[p.URL] = p
	delete(h.vanished, p.URL)
}

func (h *arcHarvest) forget(u string) {
	delete(h.known, u)
	delete(h.changed, u)
	h.vanished[u] = true
}

// makePrivate keeps a page the site wants out of indexes out of the store:
// no page row, and its earlier changes are withdrawn.
func (h *arcHarvest) makePrivate(u string) {
	if _, ok := h.known[u]; ok {
		h.forget(u)
	}
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
