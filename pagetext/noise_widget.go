package pagetext

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Widgets are the parts of a page that change at every read: a quote of
// the day, a webring's random member, a rotating banner. They are not
// numbers, so Volatile does not know them; they are found by reading a
// changed page twice, moments apart (Widgets), and kept as the site's
// learned rules, in one of two forms a person can read on the site's
// page:
//
//   - "Quote of the day: …": the lines that begin with what the two reads
//     shared, the rest differing;
//   - "between “Moth ring” and “Next member”": the lines between two lines
//     that stayed, when the changed lines share no beginning (a banner).
//
// A rule of the second form is the page's own when its lines are, and the
// site's when they are its template's.

// widgetEllipsis ends the first form of a widget rule.
const widgetEllipsis = "…"

// Parts of the second form.
const (
	slotOpen, slotMid, slotClose = "between “", "” and “", "”"
)

// Bounds of what two reads of a page may differ by and still be widgets:
// more is a page being edited, or one that is all change (a live
// ticker), whose changes are then reported as they are.
const (
	maxWidgetLines = 4 // lines changed in one place
	maxWidgetRules = 3 // places on one page
	// maxSlot bounds the lines a slot leaves out between its two lines.
	maxSlot = 8
	// minPrefixLetters: a shared beginning shorter than this ("Now: ")
	// says too little of a line to leave every line of it out.
	minPrefixLetters = 6
)

// slot is the second form of a widget rule.
type slot struct{ after, before string }

// IsWidget reports whether a learned rule's pattern is a widget rule
// (Widgets) rather than a shape (LearnShapes).
func IsWidget(pattern string) bool {
	_, ok := parseSlot(pattern)
	return ok || strings.HasSuffix(pattern, widgetEllipsis) && letters(pattern) >= minPrefixLetters
}

func parseSlot(p string) (slot, bool) {
	if !strings.HasPrefix(p, slotOpen) || !strings.HasSuffix(p, slotClose) {
		return slot{}, false
	}
	inner := p[len(slotOpen) : len(p)-len(slotClose)]
	a, b, ok := strings.Cut(inner, slotMid)
	if !ok || a == "" || b == "" {
		return slot{}, false
	}
	return slot{after: a, before: b}, true
}

// learnWidget adds a widget rule; false when pattern is none.
func (n *Noise) learnWidget(pattern string) bool {
	if s, ok := parseSlot(pattern); ok {
		n.slots = append(n.slots, s)
		return true
	}
	if IsWidget(pattern) {
		n.prefixes = append(n.prefixes, strings.TrimSuffix(pattern, widgetEllipsis))
		return true
	}
	return false
}

// Widgets compares two reads of one page, moments apart, and returns the
// rules that leave out what differs between them; none when they differ
// by more than widgets do (see maxWidgetLines), or when a change has no
// line that stayed on both of its sides to hold it by and no beginning
// the two reads share. n is the noise already known, left out of both
// reads first.
func Widgets(first, second string, n *Noise) []string {
	first, second = n.Drop(first), n.Drop(second)
	d := Compare(first, second)
	if d.Unchanged() || d.Replaced != "" {
		return nil
	}
	var out []string
	for i, op := range d.Ops {
		if len(op.Del)+len(op.Ins) == 0 {
			continue
		}
		if len(op.Del) > maxWidgetLines || len(op.Ins) > maxWidgetLines || len(out) == maxWidgetRules {
			return nil
		}
		if ps := sharedStarts(op.Del, op.Ins); ps != nil {
			for _, p := range ps {
				if !slices.Contains(out, p+widgetEllipsis) {
					out = append(out, p+widgetEllipsis)
				}
			}
			continue
		}
		var after, before string
		if i > 0 {
			// A short run between two changes keeps its lines in Head.
			if run := slices.Concat(d.Ops[i-1].Head, d.Ops[i-1].Tail); len(run) > 0 {
				after = run[len(run)-1]
			}
		}
		if i+1 < len(d.Ops) {
			if run := slices.Concat(d.Ops[i+1].Head, d.Ops[i+1].Tail); len(run) > 0 {
				before = run[0]
			}
		}
		if after == "" || before == "" || strings.Contains(after+before, slotMid) {
			// Nothing to hold it by: the edge of the text.
			continue
		}
		out = append(out, slotOpen+after+slotMid+before+slotClose)
	}
	return out
}

// sharedStarts are the beginnings each line gone shares with the line
// that took its place; nil unless every one shares one (sharedStart).
func sharedStarts(del, ins []string) []string {
	if len(del) != len(ins) {
		return nil
	}
	out := make([]string, len(del))
	for i := range del {
		if out[i] = sharedStart(del[i], ins[i]); out[i] == "" {
			return nil
		}
	}
	return out
}

// sharedStart is the beginning, up to a word's end, that two lines
// share; "" when they share none long enough to stand for a line.
func sharedStart(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	p := a[:n]
	// Back to the end of a word: "Quote of the day: The e" is "Quote of
	// the day: ".
	if n < len(a) && n < len(b) {
		cut := strings.LastIndexFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		p = p[:cut+1]
	}
	if p == a || p == b || letters(p) < minPrefixLetters {
		return ""
	}
	return p
}

// dropWidgets leaves out the lines the slot rules hold between their two
// lines.
func (n *Noise) dropWidgets(text string) string {
	if n == nil || len(n.slots) == 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	var drop map[int]bool
	for _, s := range n.slots {
		for i, l := range lines {
			if l != s.after {
				continue
			}
			for j := i + 1; j < len(lines) && j <= i+maxSlot+1; j++ {
				if lines[j] != s.before {
					continue
				}
				for k := i + 1; k < j; k++ {
					if drop == nil {
						drop = map[int]bool{}
					}
					drop[k] = true
				}
				break
			}
		}
	}
	if len(drop) == 0 {
		return text
	}
	kept := lines[:0:0]
	for i, l := range lines {
		if !drop[i] {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// widgetLine reports whether a line begins as a widget rule's does.
func (n *Noise) widgetLine(line string) bool {
	for _, p := range n.prefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}
