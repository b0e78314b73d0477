package pagetext

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// ContextLines is how many unchanged lines a Diff keeps on each side of a
// change, for unified diffs and for showing where a change sits.
const ContextLines = 3

// diffTimeout bounds one line diff. Past it the library returns a correct
// but less minimal diff, so a pathological page costs a fraction of a
// second, not minutes.
const diffTimeout = 250 * time.Millisecond

// maxDiffLines bounds the distinct lines of a line diff: the library maps
// each distinct line to one rune, and runs out of runes a little past a
// million. Over it the changed middle is reported as replaced whole.
const maxDiffLines = 1 << 20

// ErrBaseMismatch means a Diff was applied to a text it was not made from.
var ErrBaseMismatch = errors.New("pagetext: diff does not apply to this text")

// ErrClipped means a Diff that kept only some of its lines was applied.
var ErrClipped = errors.New("pagetext: diff keeps only a created page's opening lines")

// ErrReplaced means a Diff that kept only its counts was applied.
var ErrReplaced = errors.New("pagetext: diff keeps only how many lines were replaced")

// Diff is the line diff between two texts, in the form stored with a
// change. It keeps the removed and added lines and, of each unchanged run,
// only its length and its ContextLines lines next to a change: enough to
// render it, to write a unified diff, and to rebuild the new text from the
// old one, at a size that grows with the change rather than the page.
// It is stored as JSON, which keeps texts from Extract (always valid
// UTF-8) exactly.
type Diff struct {
	Ops []Op `json:"ops,omitempty"`
	// Added and Removed count the added and removed lines.
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// More counts the added lines not kept: a created page's Diff keeps
	// only its opening lines (Opening).
	More int `json:"more,omitempty"`
	// Replaced, when set, is the hash of the text that replaced the old
	// one: the Diff was too big to keep (Replacement), and only its
	// counts are. ReplacedFrom is the old text's hash, when it was known.
	// Both are TextHash's: a reader holding either text can tell it.
	Replaced     string `json:"replaced,omitempty"`
	ReplacedFrom string `json:"from,omitempty"`
}

// Op is one step of a Diff: an unchanged run (Equal > 0) or a change
// (Del and/or Ins). Consecutive changes are one Op, so that a removed line
// and the line that replaced it sit together.
type Op struct {
	// Equal is the number of unchanged lines in the run.
	Equal int `json:"eq,omitempty"`
	// Head holds the run's first lines when a change precedes it; Tail its
	// last lines when a change follows, never overlapping Head.
	Head []string `json:"head,omitempty"`
	Tail []string `json:"tail,omitempty"`
	// Del and Ins are the removed and the added lines.
	Del []string `json:"del,omitempty"`
	Ins []string `json:"ins,omitempty"`
}

// Unchanged reports whether the texts were the same.
func (d Diff) Unchanged() bool { return d.Added == 0 && d.Removed == 0 }

// Compare returns the line diff from old to new. Texts are split on "\n";
// an empty text has no lines, so Compare("", text) shows a created page.
func Compare(old, new string) Diff {
	a, b := splitLines(old), splitLines(new)
	steps := lineSteps(a, b)
	var d Diff
	for k, st := range steps {
		switch st.op {
		case diffmatchpatch.DiffEqual:
			d.Ops = append(d.Ops, equalOp(a[st.i:st.i+st.n], k > 0, k < len(steps)-1))
		case diffmatchpatch.DiffDelete:
			c := d.change()
			c.Del = append(c.Del, a[st.i:st.i+st.n]...)
			d.Removed += st.n
		case diffmatchpatch.DiffInsert:
			c := d.change()
			c.Ins = append(c.Ins, b[st.j:st.j+st.n]...)
			d.Added += st.n
		}
	}
	return d
}

// Opening is the Diff stored with a created page's change: what HTML and
// Summary show of it, its first OpeningLines lines, each cut where HTML
// would cut it, with the count of all its lines. The whole text would only
// repeat the page's snapshot, at several times the size.
func Opening(text string) Diff {
	lines := splitLines(text)
	d := Diff{Added: len(lines)}
	if len(lines) == 0 {
		return d
	}
	kept := make([]string, min(len(lines), OpeningLines))
	for k := range kept {
		kept[k] = firstRunes(lines[k], maxShownLine+1)
	}
	d.Ops = []Op{{Ins: kept}}
	d.More = len(lines) - len(kept)
	return d
}

// Replacement is what is kept of d when d itself is too big to store: its
// counts, and the hashes of the old text (from, "" when unknown) and of
// the new one (to: its snapshot's text hash). A page rewritten whole
// would otherwise store both texts whole, twice its own size, at every
// change.
func Replacement(d Diff, from, to string) Diff {
	return Diff{Added: d.Added, Removed: d.Removed, Replaced: to, ReplacedFrom: from}
}

// firstRunes keeps the first n runes of s.
func firstRunes(s string, n int) string {
	for pos := range s {
		if n == 0 {
			return s[:pos]
		}
		n--
	}
	return s
}

// equalOp keeps of an unchanged run the lines next to the changes around it.
func equalOp(lines []string, after, before bool) Op {
	op := Op{Equal: len(lines)}
	if after {
		op.Head = lines[:min(len(lines), ContextLines)]
		lines = lines[len(op.Head):]
	}
	if before {
		op.Tail = lines[len(lines)-min(len(lines), ContextLines):]
	}
	return op
}

// splitLines is the inverse of strings.Join(lines, "\n"), except that the
// empty text has no lines rather than one empty line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// change returns the trailing change Op, starting one if needed.
func (d *Diff) change() *Op {
	if n := len(d.Ops); n == 0 || d.Ops[n-1].Equal > 0 {
		d.Ops = append(d.Ops, Op{})
	}
	return &d.Ops[len(d.Ops)-1]
}

type step struct {
	op   diffmatchpatch.Operation
	i, j int // start in old and in new
	n    int // lines
}

// lineSteps diffs two line slices, each line mapped to one rune as the
// library's line mode does, and returns runs of lines with their positions.
func lineSteps(a, b []string) []step {
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	var steps []step
	if prefix > 0 {
		steps = append(steps, step{op: diffmatchpatch.DiffEqual, n: prefix})
	}
	i, j := prefix, prefix
	for _, s := range middleSteps(a[prefix:len(a)-suffix], b[prefix:len(b)-suffix]) {
		s.i, s.j = i, j
		steps = append(steps, s)
		if s.op != diffmatchpatch.DiffInsert {
			i += s.n
		}
		if s.op != diffmatchpatch.DiffDelete {
			j += s.n
		}
	}
	if suffix > 0 {
		steps = append(steps, step{op: diffmatchpatch.DiffEqual, i: i, j: j, n: suffix})
	}
	return steps
}

func middleSteps(a, b []string) []step {
	if len(a)+len(b) > maxDiffLines {
		return []step{{op: diffmatchpatch.DiffDelete, n: len(a)}, {op: diffmatchpatch.DiffInsert, n: len(b)}}
	}
	ids := make(map[string]rune, len(a)+len(b))
	ra, rb := toRunes(a, ids), toRunes(b, ids)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	var steps []step
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		if n := utf8.RuneCountInString(d.Text); n > 0 {
			steps = append(steps, step{op: d.Type, n: n})
		}
	}
	return steps
}

// toRunes gives each distinct line a rune. Runes skip the surrogate range,
// which does not survive the library's string conversions.
func toRunes(lines []string, ids map[string]rune) []rune {
	out := make([]rune, len(lines))
	for k, l := range lines {
		r, ok := ids[l]
		if !ok {
			r = rune(len(ids) + 1)
			if r >= 0xD800 {
				r += 0x800
			}
			ids[l] = r
		}
		out[k] = r
	}
	return out
}

// Apply rebuilds the new text from the old one. It checks every line the
// Diff kept against old and fails with ErrBaseMismatch on a difference.
func (d Diff) Apply(old string) (string, error) {
	if d.Replaced != "" {
		return "", ErrReplaced
	}
	if d.More > 0 {
		return "", ErrClipped
	}
	a := splitLines(old)
	var out []string
	i := 0
	take := func(n int) ([]string, error) {
		if n > len(a)-i {
			return nil, ErrBaseMismatch
		}
		lines := a[i : i+n]
		i += n
		return lines, nil
	}
	for _, op := range d.Ops {
		if op.Equal > 0 {
			lines, err := take(op.Equal)
			if err != nil || !hasPrefix(lines, op.Head) || !hasSuffix(lines, op.Tail) {
				return "", ErrBaseMismatch
			}
			out = append(out, lines...)
			continue
		}
		lines, err := take(len(op.Del))
		if err != nil || !hasPrefix(lines, op.Del) {
			return "", ErrBaseMismatch
		}
		out = append(out, op.Ins...)
	}
	if i != len(a) {
		return "", ErrBaseMismatch
	}
	return strings.Join(out, "\n"), nil
}

func hasPrefix(lines, want []string) bool {
	if len(want) > len(lines) {
		return false
	}
	for k, w := range want {
		if lines[k] != w {
			return false
		}
	}
	return true
}

func hasSuffix(lines, want []string) bool {
	if len(want) > len(lines) {
		return false
	}
	return hasPrefix(lines[len(lines)-len(want):], want)
}
