package pagetext

import (
	"html"
	"strings"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Words that say what changed where markup does not reach: a feed reader
// may drop <del> and <ins> (or their styles), and a text reader shows
// none of it. With them the text alone says which was removed and which
// added; unchanged text carries none.
const (
	RemovedLabel = "Removed: " // leads a removed line
	AddedLabel   = "Added: "   // leads an added line
	// ChangeArrow stands between what a line said and what it says, in a
	// change within a line: "[212 → 340]".
	ChangeArrow = " → "
	// RemovedWords and AddedWords lead text removed from or added to a
	// line: "[removed: warm]", "[added: all day]".
	RemovedWords = "removed: "
	AddedWords   = "added: "
)

// The colours of the web UI's light theme, inline, for the readers that
// keep a style attribute but have no stylesheet of ours. Written as the
// feed sanitizer writes them back, so sanitizing leaves them as they are.
const (
	delStyle = "color: #82071e; background-color: #ffebe9"
	insStyle = "color: #0f5323; background-color: #dafbe1"
)

// marks is how a rendering shows removed and added text.
type marks struct {
	words    bool   // labels and brackets besides the markup
	del, ins string // opening tags
}

var (
	bare   = marks{del: "<del>", ins: "<ins>"}
	worded = marks{words: true, del: `<del style="` + delStyle + `">`, ins: `<ins style="` + insStyle + `">`}
)

// FeedHTML renders the diff for feed content, which readers show in many
// ways: as HTML does, and besides the markup in words that remain when a
// reader strips tags or styles or dumps the entry as plain text. A removed
// line reads "Removed: …", an added one "Added: …"; within a changed line
// a replacement reads "[old → new]", and text only removed or only added
// "[removed: …]" or "[added: …]". <del> and <ins> carry inline colours for
// readers that keep style attributes. The bounds are HTML's.
func (d Diff) FeedHTML() string {
	out, _ := d.render(worded, view{lines: MaxHTMLLines})
	return out
}

// FeedHTMLWithin renders the diff as FeedHTML does, in at most maxBytes
// bytes of HTML besides its closing "and N more lines": a feed of many
// big changes must stay within what readers take. whole reports whether
// it showed every line the diff keeps; when not, the rest is for a page
// of its own (WholeHTML).
func (d Diff) FeedHTMLWithin(maxBytes int) (out string, whole bool) {
	return d.render(worded, view{lines: MaxHTMLLines, bytes: max(maxBytes, 1)})
}

// writeChange writes the k-th removed and added lines of op, as one line
// when they are alike, and returns how many changed lines it showed.
func (m marks) writeChange(sb *strings.Builder, op Op, k int) int {
	if k < len(op.Del) && k < len(op.Ins) {
		if segs, same := wordDiff(op.Del[k], op.Ins[k]); same >= pairSimilarity {
			sb.WriteString("<p>")
			m.writeSegments(sb, segs)
			sb.WriteString("</p>\n")
			return 2
		}
	}
	shown := 0
	if k < len(op.Del) {
		sb.WriteString("<p>" + m.label(RemovedLabel) + m.del + escapeLine(op.Del[k]) + "</del></p>\n")
		shown++
	}
	if k < len(op.Ins) {
		sb.WriteString("<p>" + m.label(AddedLabel) + m.ins + escapeLine(op.Ins[k]) + "</ins></p>\n")
		shown++
	}
	return shown
}

func (m marks) label(s string) string {
	if m.words {
		return s
	}
	return ""
}

// writeSegments writes one changed line from its word diff, whose changes
// regroup made one deletion, one insertion, or a deletion then an
// insertion between unchanged text.
func (m marks) writeSegments(sb *strings.Builder, segs []segment) {
	for n := 0; n < len(segs); n++ {
		s := segs[n]
		switch s.op {
		case diffmatchpatch.DiffEqual:
			sb.WriteString(html.EscapeString(elide(s.text, n == 0, n == len(segs)-1)))
			continue
		case diffmatchpatch.DiffDelete:
			del, ins := s.text, ""
			if n+1 < len(segs) && segs[n+1].op == diffmatchpatch.DiffInsert {
				ins = segs[n+1].text
				n++
			}
			m.writeInline(sb, del, ins)
		default:
			m.writeInline(sb, "", s.text)
		}
	}
}

// writeInline writes a change within a line: del replaced by ins, either
// of them empty. Worded, the whitespace both sides share stays outside the
// brackets, so that "sleeps all day" with " all day" added reads
// "sleeps [added: all day]".
func (m marks) writeInline(sb *strings.Builder, del, ins string) {
	lead, trail := "", ""
	if m.words {
		lead, trail = sharedSpace(del, ins)
		del = strings.TrimSuffix(strings.TrimPrefix(del, lead), trail)
		ins = strings.TrimSuffix(strings.TrimPrefix(ins, lead), trail)
	}
	words := m.words && strings.TrimSpace(del+ins) != ""
	sb.WriteString(lead)
	if words {
		sb.WriteString("[")
		switch {
		case ins == "":
			sb.WriteString(RemovedWords)
		case del == "":
			sb.WriteString(AddedWords)
		}
	}
	if del != "" {
		sb.WriteString(m.del + html.EscapeString(del) + "</del>")
	}
	if words && del != "" && ins != "" {
		sb.WriteString(ChangeArrow)
	}
	if ins != "" {
		sb.WriteString(m.ins + html.EscapeString(ins) + "</ins>")
	}
	if words {
		sb.WriteString("]")
	}
	sb.WriteString(trail)
}

// sharedSpace returns the leading and trailing whitespace that every
// non-empty one of a and b has.
func sharedSpace(a, b string) (lead, trail string) {
	var sides []string
	for _, s := range []string{a, b} {
		if s != "" {
			sides = append(sides, s)
		}
	}
	if len(sides) == 0 {
		return "", ""
	}
	lead = leadingSpace(sides[0])
	trail = sides[0][len(strings.TrimRightFunc(sides[0], unicode.IsSpace)):]
	for _, s := range sides[1:] {
		lead = commonPrefix(lead, leadingSpace(s))
		trail = commonSuffix(trail, s[len(strings.TrimRightFunc(s, unicode.IsSpace)):])
	}
	if len(lead) == len(sides[0]) {
		// All whitespace: nothing is left to bracket.
		return "", ""
	}
	return lead, trail
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeftFunc(s, unicode.IsSpace))]
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

func commonSuffix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return a[len(a)-n:]
}
