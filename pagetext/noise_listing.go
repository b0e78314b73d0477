package pagetext

import (
	"slices"
	"strings"
	"unicode"
)

// Named is a page that has an entry of its own in a harvest (created,
// or its text changed): its title and its texts, before and after, as
// the lines a listing may quote of it.
type Named struct {
	Title string
	Texts []string
}

// maxNamingWords: a line that holds a page's title and more than this
// many words besides says something of its own ("I rewrote the Luna moth
// page after my trip to the meadow"), not only where the page is.
const maxNamingWords = 5

// maxBlockLines: a page that leaves a listing (the oldest post of a home
// page's latest) takes at most this many lines with its title: its
// summary, its date.
const maxBlockLines = 4

// Listing reports whether the change from old to new only lists other
// pages, those of news: a home page, a list of posts, a tag's page, a
// post's "Next:" link, which change because a post was written or
// edited, whose entry is the news. Every line added must be noise, one of
// the site's shared lines, or name a page of news (its title, with a few
// words at most, or words of one of its lines in their order: its
// summary, a tag), and
// at least one must name one; a line removed must be such a line too, or
// of a block that a page left with its title, or, for a list that keeps
// its length (the latest five posts), one of no more lines than came
// naming news. old and new are the page's texts as read.
func (n *Noise) Listing(old, new string, shared LineSet, news []Named) bool {
	if len(news) == 0 {
		return false
	}
	old, new = n.dropWidgets(old), n.dropWidgets(new)
	d := Compare(old, new)
	if d.Unchanged() || d.Replaced != "" {
		return false
	}
	named := make([]namedWords, len(news))
	for i, p := range news {
		named[i] = namedWordsOf(p)
	}
	quiet := func(l string) bool { return l == "" || n.Ignores(l) && !n.listsTitle(l) || shared.Has(l) }
	came, left := 0, 0
	for _, op := range d.Ops {
		for _, l := range op.Ins {
			switch {
			case names(l, named):
				came++
			case !quiet(l) && !n.listsTitle(l):
				return false
			}
		}
		titled := 0
		for _, l := range op.Del {
			if n.listsTitle(l) {
				titled++
			}
		}
		for _, l := range op.Del {
			if !quiet(l) && !names(l, named) && (titled == 0 || len(op.Del) > titled*maxBlockLines) {
				left++
			}
		}
	}
	return came > 0 && left <= came
}

// Holds reports whether text names the page titled so on one of its
// lines (a title of a word or two under eight letters, "Home", names
// nothing).
func Holds(text, title string) bool {
	run := namedWordsOf(Named{Title: title}).title
	if len(run) == 0 {
		return false
	}
	for _, l := range strings.Split(text, "\n") {
		if ws := keyWords(l); len(ws) >= len(run) && containsRun(ws, run) {
			return true
		}
	}
	return false
}

// keyWords are a line's words as titleKey keeps them: dates, numbers and
// the words of lists ("new") left out.
func keyWords(line string) []string {
	var kept []string
	for _, w := range words(line) {
		if !dateWords[w] && !listWords[w] && !strings.ContainsFunc(w, unicode.IsDigit) {
			kept = append(kept, w)
		}
	}
	return kept
}

// listsTitle: the line is a page's title, as a list writes it.
func (n *Noise) listsTitle(line string) bool {
	return n != nil && len(n.Titles) > 0 && n.Titles[titleKey(line)]
}

type namedWords struct {
	title []string
	lines [][]string // the keyWords of its texts' lines
}

func namedWordsOf(p Named) namedWords {
	var nw namedWords
	if k := titleKey(p.Title); k != "" && (len(strings.Fields(k)) >= 2 || len(k) >= 8) {
		nw.title = strings.Fields(k)
	}
	for _, t := range p.Texts {
		for _, l := range strings.Split(t, "\n") {
			if ws := keyWords(l); len(ws) > 0 {
				nw.lines = append(nw.lines, ws)
			}
		}
	}
	return nw
}

// names reports whether a line names one of the pages: its title with
// maxNamingWords more at most, or words of one of its lines, in their
// order (its summary whole or cut, a tag of its tags).
func names(line string, pages []namedWords) bool {
	ws := words(line)
	key := keyWords(line)
	if len(key) == 0 {
		return false
	}
	for _, p := range pages {
		if len(p.title) > 0 && len(ws) <= len(p.title)+maxNamingWords && containsRun(key, p.title) {
			return true
		}
		for _, l := range p.lines {
			if containsRun(l, key) {
				return true
			}
		}
	}
	return false
}

// containsRun reports whether run is a contiguous part of ws.
func containsRun(ws, run []string) bool {
	for i := 0; i+len(run) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
