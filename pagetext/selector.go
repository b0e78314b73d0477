package pagetext

import (
	"fmt"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// Selector is a CSS selector a person gave to leave a part of a page out
// of its text (a visitor counter's widget, a webring's banner).
type Selector struct {
	text string
	sel  cascadia.Matcher
}

// maxSelectorBytes bounds a selector as written: a rule is a few words.
const maxSelectorBytes = 200

// ParseSelector reads a CSS selector, or a group of them ("#counter,
// .webring"). cascadia matches in time linear in the page's size.
func ParseSelector(s string) (Selector, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Selector{}, fmt.Errorf("the selector is empty")
	}
	if len(s) > maxSelectorBytes {
		return Selector{}, fmt.Errorf("the selector is longer than %d bytes", maxSelectorBytes)
	}
	sel, err := cascadia.ParseGroup(s)
	if err != nil {
		return Selector{}, fmt.Errorf("%q is not a CSS selector: %v", s, err)
	}
	return Selector{text: s, sel: sel}, nil
}

// String is the selector as written.
func (s Selector) String() string { return s.text }

// removeMatching takes out of doc every element a selector matches, with
// what it holds.
func removeMatching(doc *html.Node, remove []Selector) {
	var gone []*html.Node
	for _, s := range remove {
		if s.sel == nil {
			continue
		}
		gone = append(gone, cascadia.QueryAll(doc, s.sel)...)
	}
	for _, n := range gone {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

// Rebased returns what to compare when old was read before the newest of
// the selectors that made text: old, and the text as it was before they
// left parts out (unremoved, Options.KeepUnremoved), both without what
// those parts hold: their lines now, and the lines of old that the diff
// puts in their place (a webring's banner that named another site then).
// A change made meanwhile is still found.
func Rebased(old, text, unremoved string) (string, string) {
	if unremoved == "" || unremoved == text {
		return old, text
	}
	kept := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		kept[l] = true
	}
	gone := map[string]bool{}
	for _, l := range strings.Split(unremoved, "\n") {
		if !kept[l] {
			gone[l] = true
		}
	}
	goneOld := map[string]bool{}
	for _, op := range Compare(old, unremoved).Ops {
		var left []string
		for _, l := range op.Ins {
			if gone[l] {
				left = append(left, l)
			}
		}
		if len(left) == 0 {
			continue
		}
		for _, l := range op.Del {
			// What the change put a left-out line in place of: all it
			// replaced when it added nothing else, or a line like it.
			if len(left) == len(op.Ins) || likeAny(l, left) {
				goneOld[l] = true
			}
		}
	}
	return dropLines(old, goneOld, gone), dropLines(unremoved, gone)
}

// likeAny reports whether line shares half the words of the shorter with
// one of lines.
func likeAny(line string, lines []string) bool {
	a := wordsOf(line)
	for _, l := range lines {
		b := wordsOf(l)
		common := 0
		for w := range a {
			if b[w] {
				common++
			}
		}
		if common > 0 && common*2 >= min(len(a), len(b)) {
			return true
		}
	}
	return false
}

func wordsOf(line string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(line) {
		m[w] = true
	}
	return m
}

// dropLines returns text without the lines in any of sets.
func dropLines(text string, sets ...map[string]bool) string {
	return dropIf(text, func(l string) bool {
		for _, set := range sets {
			if set[l] {
				return true
			}
		}
		return false
	})
}
