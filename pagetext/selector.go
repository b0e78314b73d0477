package pagetext

import (
	"fmt"
	"strings"

	"github.com/andybalholm/cascadia"
)

// Selector is a CSS selector a person gave to leave a part of a page out
// of its text (a visitor counter's widget, a webring's banner).
//
// It is matched by this package, not by cascadia's combinators: those
// try every ancestor for every descendant combinator, so that
// "x * * * * * * * * * * * * *" on sixty nested divs takes longer than a
// harvest. Here each compound (div.note, #hits, a[href]) is cascadia's,
// matched against one element only, and the combinators between them are
// resolved in one walk of the page: the cost is the page's elements times
// the selector's compounds, whatever its shape.
type Selector struct {
	text    string
	complex []complexSel
	cost    *cost
}

// complexSel is one selector of a group: compounds joined by combinators,
// combs[i] joining parts[i] and parts[i+1] (' ', '>', '+' or '~').
type complexSel struct {
	parts []cascadia.Sel
	combs []byte
}

// Bounds of a selector as written: a rule is a few words, and what a walk
// of the page costs grows with its compounds.
const (
	maxSelectorBytes = 200
	// MaxSelectorCompounds bounds the compounds of one selector of a
	// group: "nav ul li a span" is five.
	MaxSelectorCompounds = 5
	// MaxSelectorGroup bounds the selectors of a group (".a, .b").
	MaxSelectorGroup = 8
)

// safePseudo are the pseudo-classes a compound may hold: each looks at
// the element and at most its children, or a few of its siblings. The
// others cascadia knows look at a whole subtree (:has, :contains), at
// every ancestor (:lang), at every sibling (:nth-of-type and the like), or
// run a regular expression (:matches): any of them on every element of a
// big page costs more than a rule should.
var safePseudo = map[string]bool{
	"not": true, "first-child": true, "last-child": true, "only-child": true,
	"empty": true, "root": true, "link": true, "checked": true, "disabled": true, "enabled": true,
}

// ParseSelector reads a CSS selector, or a group of them ("#counter,
// .webring"), within the bounds above; matching it costs time linear in
// the page's size.
func ParseSelector(s string) (Selector, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Selector{}, fmt.Errorf("the selector is empty")
	}
	if len(s) > maxSelectorBytes {
		return Selector{}, fmt.Errorf("the selector is longer than %d bytes", maxSelectorBytes)
	}
	if _, err := cascadia.ParseGroup(s); err != nil {
		return Selector{}, fmt.Errorf("%q is not a CSS selector: %v", s, err)
	}
	group, err := splitSelector(s, ',')
	if err != nil {
		return Selector{}, err
	}
	if len(group) > MaxSelectorGroup {
		return Selector{}, fmt.Errorf("a rule groups at most %d selectors", MaxSelectorGroup)
	}
	sel := Selector{text: s, cost: &cost{weight: 1}}
	for _, one := range group {
		c, err := parseComplex(one)
		if err != nil {
			return Selector{}, err
		}
		sel.complex = append(sel.complex, c)
		sel.cost.weight += int64(len(c.parts))
	}
	return sel, nil
}

// parseComplex reads one selector of a group into its compounds.
func parseComplex(s string) (complexSel, error) {
	compounds, combs := splitCombinators(s)
	if len(compounds) == 0 || len(compounds) != len(combs)+1 {
		return complexSel{}, fmt.Errorf("%q is not a CSS selector", s)
	}
	if len(compounds) > MaxSelectorCompounds {
		return complexSel{}, fmt.Errorf("%q has %d parts; a rule's selector has at most %d (such as nav ul li a span)", s, len(compounds), MaxSelectorCompounds)
	}
	c := complexSel{combs: combs}
	for _, comp := range compounds {
		if err := checkCompound(comp); err != nil {
			return complexSel{}, err
		}
		p, err := cascadia.Parse(comp)
		if err != nil {
			return complexSel{}, fmt.Errorf("%q is not a CSS selector: %v", comp, err)
		}
		c.parts = append(c.parts, p)
	}
	return c, nil
}

// checkCompound refuses what would make one compound cost more than a
// look at one element: a pseudo-class outside safePseudo, a combinator
// inside :not(), cascadia's regular-expression attribute operator.
func checkCompound(comp string) error {
	sc := scanner{s: comp}
	for i := 0; i < len(comp); i++ {
		c := comp[i]
		if !sc.step(i) {
			continue
		}
		switch {
		case c == '#' && sc.brackets > 0 && i+1 < len(comp) && comp[i+1] == '=':
			return fmt.Errorf("%q matches an attribute by a regular expression, which a rule cannot", comp)
		case c == ':' && sc.parens == 0 && sc.brackets == 0:
			name := pseudoName(comp[i+1:])
			if !safePseudo[strings.ToLower(name)] {
				return fmt.Errorf(":%s costs too much on a big page; a rule may use :not, :first-child, :last-child, :only-child and :empty", name)
			}
			if strings.EqualFold(name, "not") {
				open := i + 1 + len(name)
				end := closingParen(comp, open)
				if open >= len(comp) || comp[open] != '(' || end < 0 {
					return fmt.Errorf("%q is not a CSS selector", comp)
				}
				inner, err := splitSelector(comp[open+1:end], ',')
				if err != nil {
					return err
				}
				for _, in := range inner {
					if parts, _ := splitCombinators(in); len(parts) != 1 {
						return fmt.Errorf(":not() in a rule holds simple selectors only, not %q", in)
					}
					if err := checkCompound(in); err != nil {
						return err
					}
				}
				i, sc = end, scanner{s: comp}
			}
		}
	}
	return nil
}

func pseudoName(s string) string {
	s = strings.TrimPrefix(s, ":") // a pseudo-element's second colon
	n := 0
	for n < len(s) && (s[n] == '-' || s[n] == '_' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return s[:n]
}

// closingParen returns the index of the parenthesis closing the one at
// open, or -1.
func closingParen(s string, open int) int {
	if open >= len(s) || s[open] != '(' {
		return -1
	}
	sc := scanner{s: s}
	for i := open; i < len(s); i++ {
		if sc.step(i) && s[i] == ')' && sc.parens == 0 {
			return i
		}
	}
	return -1
}

// scanner follows quotes, escapes, brackets and parentheses through a
// selector, so that only its top level is split.
type scanner struct {
	s                string
	quote            byte
	escaped          bool
	parens, brackets int
}

// step takes in the byte at i and reports whether it is outside quotes
// and escapes (brackets and parentheses are counted, not hidden).
func (sc *scanner) step(i int) bool {
	c := sc.s[i]
	switch {
	case sc.escaped:
		sc.escaped = false
		return false
	case c == '\\':
		sc.escaped = true
		return false
	case sc.quote != 0:
		if c == sc.quote {
			sc.quote = 0
		}
		return false
	case c == '"' || c == '\'':
		sc.quote = c
		return false
	case c == '(':
		sc.parens++
	case c == ')':
		sc.parens--
	case c == '[':
		sc.brackets++
	case c == ']':
		sc.brackets--
	}
	return true
}

// splitSelector splits s at sep where it stands at the top level.
func splitSelector(s string, sep byte) ([]string, error) {
	var out []string
	sc := scanner{s: s}
	start := 0
	for i := 0; i < len(s); i++ {
		if sc.step(i) && s[i] == sep && sc.parens == 0 && sc.brackets == 0 {
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	out = append(out, strings.TrimSpace(s[start:]))
	for _, o := range out {
		if o == "" {
			return nil, fmt.Errorf("%q has an empty selector", s)
		}
	}
	return out, nil
}

// splitCombinators splits one selector into its compounds and the
// combinators between them; a combinator without a compound on both sides
// gives mismatched lengths.
func splitCombinators(s string) (compounds []string, combs []byte) {
	sc := scanner{s: s}
	var cur strings.Builder
	var pending byte
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		if len(compounds) > 0 {
			if pending == 0 {
				pending = ' '
			}
			combs = append(combs, pending)
		} else if pending != 0 && pending != ' ' {
			combs = append(combs, pending) // a leading "> p": lengths mismatch
		}
		compounds = append(compounds, cur.String())
		cur.Reset()
		pending = 0
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		top := sc.step(i) && sc.parens == 0 && sc.brackets == 0
		switch {
		case top && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'):
			flush()
			if pending == 0 {
				pending = ' '
			}
		case top && (c == '>' || c == '+' || c == '~'):
			flush()
			if pending != 0 && pending != ' ' {
				combs = append(combs, c) // two in a row: lengths mismatch
			}
			pending = c
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	if pending != 0 && pending != ' ' {
		combs = append(combs, pending) // a trailing combinator
	}
	return compounds, combs
}

// String is the selector as written.
func (s Selector) String() string { return s.text }

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
	gone := LeftOut(text, unremoved)
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

// LeftOut returns the lines of unremoved that text lacks: what selectors
// took out of a page's text, when text is its reading with them and
// unremoved its reading without.
func LeftOut(text, unremoved string) map[string]bool {
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
	return gone
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

// OnlyNoise reports whether a diff holds nothing once a person's rules
// are applied: each line it added is one n ignores or one covered holds
// (the lines of the new text the person's selectors match), and each
// line it removed is one n ignores or one such a covered line took the
// place of (as Rebased judges it). A diff that kept only its counts, or
// a created page's opening, is never only noise.
func (d Diff) OnlyNoise(n *Noise, covered map[string]bool) bool {
	if d.Replaced != "" || d.More > 0 || d.Unchanged() {
		return false
	}
	for _, op := range d.Ops {
		var gone []string
		for _, l := range op.Ins {
			switch {
			case covered[l]:
				gone = append(gone, l)
			case !n.Ignores(l):
				return false
			}
		}
		for _, l := range op.Del {
			if n.Ignores(l) || len(gone) > 0 && (len(gone) == len(op.Ins) || likeAny(l, gone)) {
				continue
			}
			return false
		}
	}
	return true
}
