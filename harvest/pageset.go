package harvest

import (
	"maps"
	"slices"
	"time"

	"tidings/db"
)

// The page-set differ: the one place that turns "what a source lists now"
// into created, updated and deleted pages, for every source that lists a
// collection's pages (SCP, ARC, and next plain sitemaps and watched
// pages). It knows db.Page and nothing of any protocol: an adapter turns
// its entries into db.Page values, reads them as a document under its
// rules, and turns the pageChanges back into db.Changes with what else it
// knows (source, author, tags).

// pageVerdict is how a listed page compares with the known one.
type pageVerdict int

const (
	// pageSame: the version already known; nothing to record.
	pageSame pageVerdict = iota
	// pageStale: older than the version known (a late or overlapping
	// document); ignored, and nothing of it is kept.
	pageStale
	// pageModified: updated, dated by its new modified time.
	pageModified
	// pageRevised: updated without a new modified time (the content
	// changed in place): dated by the document, or it would collide with
	// the change already recorded at that modified time.
	pageRevised
)

// pageRules are how a source's document is read against the page set.
type pageRules struct {
	// Complete: the document lists every page of the collection (an SCP
	// snapshot, an ARC full sitemap), so a known page it does not list was
	// deleted. A delta's silence says nothing.
	Complete bool
	// Compare judges a listed page against the known one; nil is
	// compareVersions.
	Compare func(known, listed db.Page) pageVerdict
}

// compareVersions compares version markers, a marker missing on either
// side counting as unknown rather than changed: a later modified time is
// an update dated by it, an earlier one is stale, and a different hash
// under the same (or unknown) modified time is an update dated by the
// document.
func compareVersions(known, listed db.Page) pageVerdict {
	if known.Modified != nil && listed.Modified != nil {
		if listed.Modified.Before(*known.Modified) {
			return pageStale
		}
		if !listed.Modified.Equal(*known.Modified) {
			return pageModified
		}
	}
	if known.Hash != "" && listed.Hash != "" && known.Hash != listed.Hash {
		return pageRevised
	}
	return pageSame
}

// pageChange is one page's change found by the differ.
type pageChange struct {
	Kind string // created, updated or deleted
	At   time.Time
	// Page is the page as now known; a deleted page as it was last known,
	// so that its entry can still be titled.
	Page db.Page
}

// pageSet is a collection's pages during one harvest: those stored, as
// changed by the documents read so far.
type pageSet struct {
	stored  map[string]db.Page
	changed map[string]db.Page // to store
	gone    map[string]bool    // to forget
}

func newPageSet(stored map[string]db.Page) *pageSet {
	if stored == nil {
		stored = map[string]db.Page{}
	}
	return &pageSet{stored: stored, changed: map[string]db.Page{}, gone: map[string]bool{}}
}

// fresh: nothing is stored and no document has changed anything yet.
func (s *pageSet) fresh() bool { return len(s.stored) == 0 && len(s.changed) == 0 }

// page returns what is known of a page now.
func (s *pageSet) page(u string) (db.Page, bool) {
	if s.gone[u] {
		return db.Page{}, false
	}
	if p, ok := s.changed[u]; ok {
		return p, true
	}
	p, ok := s.stored[u]
	return p, ok
}

func (s *pageSet) set(p db.Page) {
	s.changed[p.URL] = p
	delete(s.gone, p.URL)
}

// forget drops a page without a change: it is to leave the store.
func (s *pageSet) forget(u string) {
	delete(s.changed, u)
	s.gone[u] = true
}

// urls lists the pages known now, sorted.
func (s *pageSet) urls() []string {
	all := map[string]bool{}
	for u := range s.stored {
		all[u] = true
	}
	for u := range s.changed {
		all[u] = true
	}
	for u := range s.gone {
		delete(all, u)
	}
	return slices.Sorted(maps.Keys(all))
}

// toStore returns, sorted, the pages to write and the URLs to forget.
func (s *pageSet) toStore() (pages []db.Page, gone []string) {
	for _, u := range slices.Sorted(maps.Keys(s.changed)) {
		pages = append(pages, s.changed[u])
	}
	return pages, slices.Sorted(maps.Keys(s.gone))
}

// read starts reading one document, dated at (its generated time, or
// when it was fetched when it says none). Nothing it lists reaches the
// set before commit, so a document found invalid halfway stores nothing.
func (s *pageSet) read(at time.Time, r pageRules) *pageDoc {
	if r.Compare == nil {
		r.Compare = compareVersions
	}
	return &pageDoc{set: s, at: at, rules: r, staged: map[string]db.Page{}, listed: map[string]bool{}}
}

// pageDoc is one document being read against a page set.
type pageDoc struct {
	set    *pageSet
	at     time.Time
	rules  pageRules
	staged map[string]db.Page
	listed map[string]bool
}

// page returns what is known of a page, this document's earlier entries
// included.
func (d *pageDoc) page(u string) (db.Page, bool) {
	if p, ok := d.staged[u]; ok {
		return p, true
	}
	return d.set.page(u)
}

// add compares one listed page with what is known of it and returns the
// change it makes, if any. A new page is created; a known one is judged
// by the rules' Compare. A change is never dated later than the document.
// Whatever moved is kept: the listed page's markers, the known ones where
// it has none, and its title and summary.
func (d *pageDoc) add(p db.Page) (pageChange, bool) {
	d.listed[p.URL] = true
	known, ok := d.page(p.URL)
	if !ok {
		d.staged[p.URL] = p
		return pageChange{Kind: "created", At: d.dated(p), Page: p}, true
	}
	verdict := d.rules.Compare(known, p)
	if verdict == pageStale {
		return pageChange{}, false
	}
	next := p
	if next.Modified == nil {
		next.Modified = known.Modified
	}
	if next.Hash == "" {
		next.Hash = known.Hash
	}
	if !samePage(next, known) {
		d.staged[p.URL] = next
	}
	switch verdict {
	case pageModified:
		return pageChange{Kind: "updated", At: d.dated(p), Page: next}, true
	case pageRevised:
		return pageChange{Kind: "updated", At: d.at, Page: next}, true
	}
	return pageChange{}, false
}

// dated is when a listed page changed: its modified time, never later than
// the document; the document's time when it has none.
func (d *pageDoc) dated(p db.Page) time.Time {
	if p.Modified == nil || p.Modified.After(d.at) {
		return d.at
	}
	return *p.Modified
}

// list counts a page as listed without comparing it (an entry the source
// could not read has not vanished).
func (d *pageDoc) list(u string) { d.listed[u] = true }

// forget drops a listed page from the set without a change (a page the
// site asks to keep out of indexes).
func (d *pageDoc) forget(u string) {
	d.listed[u] = true
	if _, ok := d.page(u); ok {
		delete(d.staged, u)
		d.set.forget(u)
	}
}

// commit applies the document to the set. For a complete document it
// returns the deletions, by URL, dated by the document: the known pages it
// does not list, except those modified after it (their absence is old
// news).
func (d *pageDoc) commit() []pageChange {
	for _, p := range d.staged {
		d.set.set(p)
	}
	if !d.rules.Complete {
		return nil
	}
	var out []pageChange
	for _, u := range d.set.urls() {
		if d.listed[u] {
			continue
		}
		p, _ := d.set.page(u)
		if p.Modified != nil && p.Modified.After(d.at) {
			continue
		}
		d.set.forget(u)
		out = append(out, pageChange{Kind: "deleted", At: d.at, Page: p})
	}
	return out
}

func samePage(a, b db.Page) bool {
	if a.Hash != b.Hash || a.Title != b.Title || a.Summary != b.Summary || (a.Modified == nil) != (b.Modified == nil) {
		return false
	}
	return a.Modified == nil || a.Modified.Equal(*b.Modified)
}
