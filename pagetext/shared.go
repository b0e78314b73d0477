package pagetext

import (
	"hash/maphash"
	"strings"
)

// SharedLines finds the lines of text most of a site's pages share: its
// navigation (which lists every page, so adding one changes them all), a
// "© 2026" footer. A page whose text changed only in them did not change
// for its readers. It counts, for each line, the pages that have it; the
// lines are kept as hashes, and only those near a page's ends are counted
// (sharedLineEnds), so that memory stays small whatever the pages hold.
type SharedLines struct {
	count map[uint64]int
	pages int
}

// sharedLineEnds: only this many lines at the start and at the end of a
// page are counted, where navigation and footers are.
const sharedLineEnds = 200

// lineSeed hashes the lines of every count, so that the sets of lines of
// two counts can be joined.
var lineSeed = maphash.MakeSeed()

// NewSharedLines starts a count.
func NewSharedLines() *SharedLines { return &SharedLines{count: map[uint64]int{}} }

// Add counts one page, given its texts (before and after a change, say):
// each line once, however many times the texts have it. Empty lines are
// nobody's.
func (s *SharedLines) Add(texts ...string) {
	seen := map[uint64]bool{}
	for _, t := range texts {
		lines := strings.Split(t, "\n")
		if len(lines) > 2*sharedLineEnds {
			lines = append(lines[:sharedLineEnds:sharedLineEnds], lines[len(lines)-sharedLineEnds:]...)
		}
		for _, l := range lines {
			if l == "" {
				continue
			}
			if k := maphash.String(lineSeed, l); !seen[k] {
				seen[k] = true
				s.count[k]++
			}
		}
	}
	s.pages++
}

// Pages is how many pages were counted.
func (s *SharedLines) Pages() int { return s.pages }

// Lines returns the lines that keep says are shared, given how many of
// the pages have each and how many pages were counted.
func (s *SharedLines) Lines(keep func(have, pages int) bool) LineSet {
	out := LineSet{}
	for k, n := range s.count {
		if keep(n, s.pages) {
			if out.set == nil {
				out.set = map[uint64]bool{}
			}
			out.set[k] = true
		}
	}
	return out
}

// QuarterShared returns the lines found in a quarter of texts, and in two
// at least: a generated site's navigation and footer, which a new page or
// a new build changes on every page at once. Not more than a quarter: the
// extractor finds the main text of some pages and falls back to the whole
// body on others, so those lines are in only some of the texts.
func QuarterShared(texts []string) LineSet {
	count := NewSharedLines()
	for _, t := range texts {
		count.Add(t)
	}
	return count.Lines(func(have, pages int) bool { return have >= 2 && have*4 >= pages })
}

// LineSet is a set of lines, such as a site's shared ones.
type LineSet struct{ set map[uint64]bool }

// Has reports whether the set holds the line.
func (l LineSet) Has(line string) bool { return l.set[maphash.String(lineSeed, line)] }

// Len is how many lines the set holds.
func (l LineSet) Len() int { return len(l.set) }

// Union returns the lines of both sets.
func (l LineSet) Union(o LineSet) LineSet {
	if len(o.set) == 0 {
		return l
	}
	out := LineSet{set: make(map[uint64]bool, len(l.set)+len(o.set))}
	for k := range l.set {
		out.set[k] = true
	}
	for k := range o.set {
		out.set[k] = true
	}
	return out
}

// Drop returns text without the set's lines.
func (l LineSet) Drop(text string) string {
	if len(l.set) == 0 {
		return text
	}
	return dropIf(text, l.Has)
}

// dropIf returns text without the lines drop says to leave out; the text
// itself when it leaves out none.
func dropIf(text string, drop func(line string) bool) string {
	lines := strings.Split(text, "\n")
	kept := lines[:0:0]
	for _, l := range lines {
		if !drop(l) {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(lines) {
		return text
	}
	return strings.Join(kept, "\n")
}

// CompareBesides compares two texts with the lines of shared left out of
// both.
func CompareBesides(old, new string, shared LineSet) Diff {
	return Compare(shared.Drop(old), shared.Drop(new))
}
