package pagetext

import (
	"hash/maphash"
	"slices"
)

// GoneChrome returns the lines a site's pages lost at once in one
// harvest: its navbar's old release ("parsnip 1.4.0"), a section the
// navigation no longer names. The lines a release adds are found shared
// by the pages read after it (SharedLines, QuarterShared), but the lines
// it removes are only in the texts read before, which, when the pages
// are read over several harvests, are of many releases and share little;
// so a line gone is the site's when it left more than half of the pages
// compared, minPages at least; when a line of its shape took its place
// among the lines shared (the next release's number); or when it is a
// navigation's item (maxNavWords at most) between lines shared, the
// page's chrome on both of its sides. Each pair is a page's text before
// and after.
//
// The lines that left most pages are marked true: they are the site's
// for good (a harvest that reads only the pages left over may compare one
// page, with nothing shared to tell them by), and their shapes are to be
// learned.
func GoneChrome(pairs [][2]string, shared LineSet, minPages int) map[string]bool {
	count := map[string]int{}
	came := map[string]bool{} // shapes of the shared lines that came
	within := map[string]bool{}
	for _, p := range pairs {
		gone, added := lineDiffSets(p[0], p[1])
		for l := range gone {
			count[l]++
		}
		for _, l := range amidShared(p[0], p[1], shared) {
			within[l] = true
		}
		for l := range added {
			if shared.Has(l) {
				if s := Shape(l); letters(s) >= 3 {
					came[s] = true
				}
			}
		}
	}
	out := map[string]bool{}
	for l, n := range count {
		most := n >= minPages && n*2 > len(pairs)
		if most || came[Shape(l)] || within[l] {
			out[l] = most && letters(Shape(l)) >= 3
		}
	}
	return out
}

// NewLineSet is the set of lines given.
func NewLineSet(lines ...string) LineSet {
	out := LineSet{}
	for _, l := range lines {
		if out.set == nil {
			out.set = map[uint64]bool{}
		}
		out.set[maphash.String(lineSeed, l)] = true
	}
	return out
}

// ChromeShapes are the shapes of the lines GoneChrome says left most
// pages, to be learned as the site's.
func ChromeShapes(gone map[string]bool) map[string]bool {
	out := map[string]bool{}
	for l, most := range gone {
		if most && !IsWidget(Shape(l)) {
			out[Shape(l)] = true
		}
	}
	return out
}

// maxNavWords: a line of more words is a page's, not a navigation's
// item, wherever it stands.
const maxNavWords = 4

// amidShared returns the lines removed from a page, with nothing in
// their place, that are a navigation's items: their nearest lines that
// stayed, before and after, are shared (or the text's edge on one side).
func amidShared(old, new string, shared LineSet) []string {
	if shared.Len() == 0 {
		return nil
	}
	d := Compare(old, new)
	if d.Replaced != "" {
		return nil
	}
	var out []string
	for i, op := range d.Ops {
		if len(op.Del) == 0 || len(op.Ins) > 0 {
			continue
		}
		var before, after string
		if i > 0 {
			if run := append(slices.Clone(d.Ops[i-1].Head), d.Ops[i-1].Tail...); len(run) > 0 {
				before = run[len(run)-1]
			}
		}
		if i+1 < len(d.Ops) {
			if run := append(slices.Clone(d.Ops[i+1].Head), d.Ops[i+1].Tail...); len(run) > 0 {
				after = run[0]
			}
		}
		if before == "" && after == "" || before != "" && !shared.Has(before) || after != "" && !shared.Has(after) {
			continue
		}
		for _, l := range op.Del {
			if len(words(l)) <= maxNavWords {
				out = append(out, l)
			}
		}
	}
	return out
}
