package pagetext

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// MaxHTMLLines is how many changed lines HTML shows before "and N more
// lines": a feed entry says what changed, it does not replace the page.
const MaxHTMLLines = 40

// OpeningLines is how many lines of a created page HTML shows.
const OpeningLines = 5

// NoTextChange is what HTML and Summary say when the text is the same.
const NoTextChange = "no change to the text"

const (
	maxShownLine = 600 // runes of a whole added or removed line in HTML
	maxEqualRun  = 400 // runes of unchanged text kept whole inside a changed line
	elideKeep    = 120 // runes kept on each side when eliding it
	maxSummary   = 80  // runes of the line quoted in Summary
)

// HTML renders the diff for a web page, whose stylesheet colours it:
// added text inside <ins>, removed text inside <del>, a removed line and
// the line replacing it shown as one line with the changed words marked,
// at most MaxHTMLLines changed lines. A created page (nothing removed,
// nothing kept) shows its opening lines. All text is escaped.
func (d Diff) HTML() string {
	out, _ := d.render(bare, view{lines: MaxHTMLLines})
	return out
}

// HTMLPart is HTML, and whether it shows every line the diff keeps:
// when not, a page of the change (WholeHTML) has the rest.
func (d Diff) HTMLPart() (out string, whole bool) {
	return d.render(bare, view{lines: MaxHTMLLines})
}

// WholeHTML renders, as HTML does, every line the diff keeps, each run
// of unchanged lines between two changes said in words: what a page of
// its own shows of one change. It is as long as the stored diff, which
// the harvest bounds.
func (d Diff) WholeHTML() string {
	out, _ := d.render(bare, view{gaps: true})
	return out
}

// view bounds a rendering: at most lines changed lines (0: all), at most
// bytes of HTML (0: no bound), and with gaps, the unchanged runs between
// changes said in words.
type view struct {
	lines, bytes int
	gaps         bool
}

// room reports whether n more bytes fit after what sb holds.
func (v view) room(sb *strings.Builder, n int) bool {
	return v.bytes == 0 || sb.Len()+n <= v.bytes
}

func (v view) moreLines(shown, n int) bool {
	return v.lines == 0 || shown+n <= v.lines
}

// render writes the diff within v and says whether it showed every line
// the diff keeps.
func (d Diff) render(m marks, v view) (string, bool) {
	if d.Unchanged() {
		return "<p>" + NoTextChange + "</p>", true
	}
	if d.Replaced != "" {
		return "<p>" + d.replacedLine() + "</p>\n", true
	}
	var sb, line strings.Builder
	if d.Removed == 0 && len(d.Ops) == 1 {
		lines := d.Ops[0].Ins
		lines = lines[:min(len(lines), OpeningLines)]
		shown := 0
		for _, l := range lines {
			p := "<p>" + escapeLine(l) + "</p>\n"
			if !v.room(&sb, len(p)) {
				break
			}
			sb.WriteString(p)
			shown++
		}
		// Added, not what the Diff kept: Opening keeps only what is shown,
		// and a created page's change shows no more than its opening,
		// whatever older harvests kept of it; the page has the rest.
		writeMore(&sb, d.Added-shown)
		return sb.String(), shown == len(lines)
	}
	shown, kept := 0, 0
	full := false
	for k, op := range d.Ops {
		if op.Equal > 0 {
			if v.gaps && k > 0 && k < len(d.Ops)-1 {
				line.Reset()
				fmt.Fprintf(&line, "<p class=\"same\">… %d unchanged %s …</p>\n", op.Equal, plural(op.Equal, "line", "lines"))
				if !full && v.room(&sb, line.Len()) {
					sb.WriteString(line.String())
				}
			}
			continue
		}
		for k := 0; k < max(len(op.Del), len(op.Ins)); k++ {
			n := linesAt(op, k)
			kept += n
			if full || !v.moreLines(shown, n) {
				full = true
				continue
			}
			line.Reset()
			m.writeChange(&line, op, k)
			if !v.room(&sb, line.Len()) {
				full = true
				continue
			}
			sb.WriteString(line.String())
			shown += n
		}
	}
	if shown == 0 {
		// Not one line fit (a line of a thousand marked words): the
		// entry still says what changed, in its summary, which counts
		// the lines it leaves out itself.
		sb.WriteString("<p>" + html.EscapeString(d.Summary()) + "</p>\n")
		return sb.String(), false
	}
	writeMore(&sb, d.Added+d.Removed-shown)
	return sb.String(), shown == kept
}

// linesAt counts the changed lines at position k of a change.
func linesAt(op Op, k int) int {
	n := 0
	if k < len(op.Del) {
		n++
	}
	if k < len(op.Ins) {
		n++
	}
	return n
}

// elide shortens long unchanged text inside a changed line, keeping the
// words next to the change.
func elide(s string, first, last bool) string {
	n := utf8.RuneCountInString(s)
	if n <= maxEqualRun {
		return s
	}
	r := []rune(s)
	switch {
	case first && last:
		return s
	case first:
		return "…" + string(r[n-elideKeep:])
	case last:
		return string(r[:elideKeep]) + "…"
	}
	return string(r[:elideKeep]) + " … " + string(r[n-elideKeep:])
}

func escapeLine(l string) string {
	if utf8.RuneCountInString(l) > maxShownLine {
		l = truncateRunes(l, maxShownLine)
	}
	return html.EscapeString(l)
}

// replacedLine says what a Replacement kept: the page's text changed too
// much to keep, let alone show.
func (d Diff) replacedLine() string {
	return fmt.Sprintf("The page was replaced: %d %s added, %d removed, too many to show.",
		d.Added, plural(d.Added, "line", "lines"), d.Removed)
}

func writeMore(sb *strings.Builder, n int) {
	if n > 0 {
		fmt.Fprintf(sb, "<p>and %d more %s</p>\n", n, plural(n, "line", "lines"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Summary says the change in one line, each side labelled: "Removed:
// old line; Added: new line", at most summaryLines lines a side, cut to
// maxSummary runes together, and "(and N more lines)" for the rest, so that
// a reader of a digest, a push or the dashboard tells an edit from an
// addition. A text replaced whole, whose lines were not kept, gives its
// counts.
func (d Diff) Summary() string {
	if d.Unchanged() {
		return NoTextChange
	}
	if d.Replaced != "" {
		return fmt.Sprintf("Replaced whole: %d %s removed, %d added", d.Removed, plural(d.Removed, "line", "lines"), d.Added)
	}
	rem, add := d.Sides()
	switch {
	case rem == "":
		return add
	case add == "":
		return rem
	case strings.HasSuffix(rem, ".") || strings.HasSuffix(rem, "!") || strings.HasSuffix(rem, "?"):
		// A sentence ends the removed side: the label starts the next.
		return rem + " " + add
	}
	return rem + "; " + add
}

// Sides says each side of a change in a line of its own, labelled
// ("Removed: …", "Added: …"; "" for a side with no line), for a page that
// shows them one under the other. A text replaced whole or unchanged has
// no sides: Summary says it.
func (d Diff) Sides() (removed, added string) {
	if d.Unchanged() || d.Replaced != "" {
		return "", ""
	}
	var rem, add []string
	for _, op := range d.Ops {
		for _, l := range op.Del {
			if l = strings.TrimSpace(l); l != "" {
				rem = append(rem, l)
			}
		}
		for _, l := range op.Ins {
			if l = strings.TrimSpace(l); l != "" {
				add = append(add, l)
			}
		}
	}
	return summarySide("Removed", rem, d.Removed), summarySide("Added", add, d.Added)
}

// summaryLines is how many lines of each side Summary quotes.
const summaryLines = 2

// summarySide quotes the first lines of one side of a change under its
// label; total is the side's count of lines, which may be more than
// the lines kept.
func summarySide(label string, lines []string, total int) string {
	total = max(total, len(lines))
	if total == 0 {
		return ""
	}
	shown := lines[:min(len(lines), summaryLines)]
	// The side's lines share maxSummary runes: a summary is read in a
	// list, and a feed carries one for every entry.
	s := label + ": " + truncateRunes(strings.Join(shown, " / "), maxSummary)
	if len(shown) == 0 {
		s = fmt.Sprintf("%s: %d blank %s", label, total, plural(total, "line", "lines"))
	} else if more := total - len(shown); more > 0 {
		s += fmt.Sprintf(" (and %d more %s)", more, plural(more, "line", "lines"))
	}
	return s
}

// Unified writes the diff as a unified diff of the text's lines with
// ContextLines lines of context, under the two labels; empty when the text
// did not change. Texts carry no final newline, so none is marked missing.
func (d Diff) Unified(oldLabel, newLabel string) string {
	if d.Unchanged() {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oneLine(oldLabel), oneLine(newLabel))
	if d.Replaced != "" {
		// No hunk: the lines were not kept. The backslash marks a line of
		// neither text, as for a created page's lines not kept.
		fmt.Fprintf(&sb, "\\ %d %s replaced by %d, not kept\n", d.Removed, plural(d.Removed, "line", "lines"), d.Added)
		return sb.String()
	}
	var h *hunk
	var lead []string // context before the next change
	oldLine, newLine := 1, 1
	for k, op := range d.Ops {
		if op.Equal > 0 {
			switch {
			case h != nil && k < len(d.Ops)-1 && op.Equal <= 2*ContextLines:
				h.context(append(append([]string(nil), op.Head...), op.Tail...))
			case h != nil:
				h.context(op.Head)
				h.write(&sb)
				h = nil
			}
			lead = op.Tail
			oldLine += op.Equal
			newLine += op.Equal
			continue
		}
		if h == nil {
			h = &hunk{oldStart: oldLine - len(lead), newStart: newLine - len(lead)}
			h.context(lead)
		}
		lead = nil
		for _, l := range op.Del {
			h.lines = append(h.lines, "-"+l)
		}
		for _, l := range op.Ins {
			h.lines = append(h.lines, "+"+l)
		}
		h.oldN += len(op.Del)
		h.newN += len(op.Ins)
		oldLine += len(op.Del)
		newLine += len(op.Ins)
	}
	if h != nil {
		h.write(&sb)
	}
	if d.More > 0 {
		// diff(1) marks what is not a line of either text with a backslash.
		fmt.Fprintf(&sb, "\\ and %d more %s, not kept\n", d.More, plural(d.More, "line", "lines"))
	}
	return sb.String()
}

type hunk struct {
	oldStart, newStart, oldN, newN int
	lines                          []string
}

func (h *hunk) context(lines []string) {
	for _, l := range lines {
		h.lines = append(h.lines, " "+l)
	}
	h.oldN += len(lines)
	h.newN += len(lines)
}

func (h *hunk) write(sb *strings.Builder) {
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(h.oldStart, h.oldN), hunkRange(h.newStart, h.newN))
	for _, l := range h.lines {
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
}

// hunkRange formats a range as diff(1) does: an empty range names the line
// before it, a one-line range omits its length.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
