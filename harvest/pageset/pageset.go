// Package pageset is the page-set differ: the one place that turns "what
// a source lists now" into created, updated and deleted pages, for every
// source that lists a collection's pages (SCP, ARC, plain sitemaps and
// ResourceSync resource lists, watched pages). It knows db.Page and
// nothing of any protocol: an adapter turns its entries into db.Page
// values, reads them as a document under its rules, and turns the Changes
// back into db.Changes with what else it knows (source, author, tags).
package pageset

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"time"

	"tidings/db"
)

// maxHashLen: a longer hash is stored as its digest.
const maxHashLen = 128

// Hash is what is stored of a version hash a source gives (an ARC
// ai_checksum, a ResourceSync rs:md hash and length): itself, or the
// digest of one too long to keep.
func Hash(sum string) string {
	sum = strings.TrimSpace(sum)
	if len(sum) <= maxHashLen {
		return sum
	}
	d := sha256.Sum256([]byte(sum))
	return "sha256-of-checksum:" + hex.EncodeToString(d[:])
}

// Verdict is how a listed page compares with the known one.
type Verdict int

const (
	// Same: the version already known; nothing to record.
	Same Verdict = iota
	// Stale: older than the version known (a late or overlapping
	// document); ignored, and nothing of it is kept.
	Stale
	// Modified: updated, dated by its new modified time.
	Modified
	// Revised: updated without a new modified time (the content
	// changed in place): dated by the document, or it would collide with
	// the change already recorded at that modified time.
	Revised
)

// Rules are how a source's document is read against the page set.
type Rules struct {
	// Complete: the document lists every page of the collection (an SCP
	// snapshot, an ARC full sitemap), so a known page it does not list was
	// deleted. A delta's silence says nothing.
	Complete bool
	// Compare judges a listed page against the known one; nil is
	// CompareVersions.
	Compare func(known, listed db.Page) Verdict
}

// CompareVersions compares version markers, a marker missing on either
// side counting as unknown rather than changed: a later modified time is
// an update dated by it, an earlier one is stale, and a different hash
// under the same (or unknown) modified time is an update dated by the
// document.
func CompareVersions(known, listed db.Page) Verdict {
	if known.Modified != nil && listed.Modified != nil {
		if listed.Modified.Before(*known.Modified) {
			return Stale
		}
		if !listed.Modified.Equal(*known.Modified) {
			return Modified
		}
	}
	if known.Hash != "" && listed.Hash != "" && known.Hash != listed.Hash {
		return Revised
	}
	return Same
}

// Change is one page's change found by the differ.
type Change struct {
	Kind string // created, updated or deleted
	At   time.Time
	// Page is the page as now known; a deleted page as it was last known,
	// so that its entry can still be titled.
	Page db.Page
}

// Set is a collection's pages during one harvest: those stored, as
// changed by the documents read so far.
type Set struct {
	stored  map[string]db.Page
	changed map[string]db.Page // to store
	gone    map[string]bool    // to forget
}

// New starts a harvest's page set from the pages stored.
func New(stored map[string]db.Page) *Set {
	if stored == nil {
		stored = map[string]db.Page{}
	}
	return &Set{stored: stored, changed: map[string]db.Page{}, gone: map[string]bool{}}
}

// Fresh: nothing is stored and no document has changed anything yet.
func (s *Set) Fresh() bool { return len(s.stored) == 0 && len(s.changed) == 0 }

// Page returns what is known of a page now.
func (s *Set) Page(u string) (db.Page, bool) {
	if s.gone[u] {
		return db.Page{}, false
	}
	if p, ok := s.changed[u]; ok {
		return p, true
	}
	p, ok := s.stored[u]
	return p, ok
}

// Stored returns a page as it was stored before this harvest.
func (s *Set) Stored(u string) (db.Page, bool) {
	p, ok := s.stored[u]
	return p, ok
}

// StoredURLs lists, sorted, the pages stored before this harvest.
func (s *Set) StoredURLs() []string { return slices.Sorted(maps.Keys(s.stored)) }

// Put sets a page as now known, without a change: a source that judges a
// page itself (by reading it) records what it found.
func (s *Set) Put(p db.Page) { s.set(p) }

func (s *Set) set(p db.Page) {
	s.changed[p.URL] = p
	delete(s.gone, p.URL)
}

// Forget drops a page without a change: it is to leave the store.
func (s *Set) Forget(u string) {
	delete(s.changed, u)
	s.gone[u] = true
}

// URLs lists the pages known now, sorted.
func (s *Set) URLs() []string {
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

// ToStore returns, sorted, the pages to write and the URLs to forget.
func (s *Set) ToStore() (pages []db.Page, gone []string) {
	for _, u := range slices.Sorted(maps.Keys(s.changed)) {
		pages = append(pages, s.changed[u])
	}
	return pages, slices.Sorted(maps.Keys(s.gone))
}

// Read starts reading one document, dated at (its generated time, or
// when it was fetched when it says none). Nothing it lists reaches the
// set before commit, so a document found invalid halfway stores nothing.
func (s *Set) Read(at time.Time, r Rules) *Doc {
	if r.Compare == nil {
		r.Compare = CompareVersions
	}
	return &Doc{set: s, at: at, rules: r, staged: map[string]db.Page{}, listed: map[string]bool{}}
}

// Doc is one document being read against a page set.
type Doc struct {
	set    *Set
	at     time.Time
	rules  Rules
	staged map[string]db.Page
	listed map[string]bool
}

// Page returns what is known of a page, this document's earlier entries
// included.
func (d *Doc) Page(u string) (db.Page, bool) {
	if p, ok := d.staged[u]; ok {
		return p, true
	}
	return d.set.Page(u)
}

// Add compares one listed page with what is known of it and returns the
// change it makes, if any. A new page is created; a known one is judged
// by the rules' Compare. A change is never dated later than the document.
// Whatever moved is kept: the listed page's markers, the known ones where
// it has none, and its title and summary.
func (d *Doc) Add(p db.Page) (Change, bool) {
	d.listed[p.URL] = true
	known, ok := d.Page(p.URL)
	if !ok {
		d.staged[p.URL] = p
		return Change{Kind: "created", At: d.dated(p), Page: p}, true
	}
	verdict := d.rules.Compare(known, p)
	if verdict == Stale {
		return Change{}, false
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
	case Modified:
		return Change{Kind: "updated", At: d.dated(p), Page: next}, true
	case Revised:
		return Change{Kind: "updated", At: d.at, Page: next}, true
	}
	return Change{}, false
}

// dated is when a listed page changed: its modified time, never later than
// the document; the document's time when it has none.
func (d *Doc) dated(p db.Page) time.Time {
	if p.Modified == nil || p.Modified.After(d.at) {
		return d.at
	}
	return *p.Modified
}

// At is when the document was made: its generated time, or when it was
// fetched.
func (d *Doc) At() time.Time { return d.at }

// Listed reports whether the document listed the page.
func (d *Doc) Listed(u string) bool { return d.listed[u] }

// Unlisted returns, sorted, the pages known before the document that it
// does not list: sorting those few rather than every page known.
func (d *Doc) Unlisted() []string {
	var out []string
	for _, m := range []map[string]db.Page{d.set.stored, d.set.changed} {
		for u := range m {
			if _, ok := d.set.Page(u); ok && !d.listed[u] {
				out = append(out, u)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// List counts a page as listed without comparing it (an entry the source
// could not read has not vanished).
func (d *Doc) List(u string) { d.listed[u] = true }

// Forget drops a listed page from the set without a change (a page the
// site asks to keep out of indexes).
func (d *Doc) Forget(u string) {
	d.listed[u] = true
	if _, ok := d.Page(u); ok {
		delete(d.staged, u)
		d.set.Forget(u)
	}
}

// Commit applies the document to the set. For a complete document it
// returns the deletions, by URL, dated by the document: the known pages it
// does not list, except those modified after it (their absence is old
// news).
func (d *Doc) Commit() []Change {
	for _, p := range d.staged {
		d.set.set(p)
	}
	if !d.rules.Complete {
		return nil
	}
	var out []Change
	for _, u := range d.set.URLs() {
		if d.listed[u] {
			continue
		}
		p, _ := d.set.Page(u)
		if p.Modified != nil && p.Modified.After(d.at) {
			continue
		}
		d.set.Forget(u)
		out = append(out, Change{Kind: "deleted", At: d.at, Page: p})
	}
	return out
}

func samePage(a, b db.Page) bool {
	if a.Hash != b.Hash || a.Title != b.Title || a.Summary != b.Summary || (a.Modified == nil) != (b.Modified == nil) {
		return false
	}
	return a.Modified == nil || a.Modified.Equal(*b.Modified)
}
