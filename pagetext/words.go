package pagetext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// pairSimilarity is the share of a changed line that must survive for the
// removed and added lines to be shown as one line with words marked;
// below it they are different sentences, clearer shown whole.
const pairSimilarity = 0.5

// segment is a piece of a word diff: equal, deleted or inserted text.
type segment struct {
	op   diffmatchpatch.Operation
	text string
}

// wordDiff diffs two lines word by word and reports how much of the longer
// line is common to both.
func wordDiff(a, b string) ([]segment, float64) {
	ta, tb := tokens(a), tokens(b)
	ids := make(map[string]rune, len(ta)+len(tb))
	ra, rb := toRunes(ta, ids), toRunes(tb, ids)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	var segs []segment
	i, j, common := 0, 0, 0
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		n := utf8.RuneCountInString(d.Text)
		var text string
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			text = strings.Join(tb[j:j+n], "")
			j += n
		default:
			text = strings.Join(ta[i:i+n], "")
			i += n
			if d.Type == diffmatchpatch.DiffEqual {
				j += n
				common += len(text)
			}
		}
		segs = append(segs, segment{d.Type, text})
	}
	return regroup(absorbSpaces(segs)), float64(common) / float64(max(len(a), len(b), 1))
}

// tokens splits a line into words, runs of spaces and single other
// characters, so that punctuation changes stay small and words stay whole.
func tokens(s string) []string {
	var out []string
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		n := size
		if class := runeClass(r); class != 0 {
			for n < len(s) {
				r2, size2 := utf8.DecodeRuneInString(s[n:])
				if runeClass(r2) != class {
					break
				}
				n += size2
			}
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// runeClass is 1 for word characters, 2 for spaces, 0 for anything else.
func runeClass(r rune) int {
	switch {
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
		return 1
	case unicode.IsSpace(r):
		return 2
	}
	return 0
}

// absorbSpaces turns a lone space between two changes into part of both,
// so "<del>a</del> <del>b</del>" reads as one change "<del>a b</del>".
func absorbSpaces(segs []segment) []segment {
	var out []segment
	for k, s := range segs {
		if s.op == diffmatchpatch.DiffEqual && k > 0 && k < len(segs)-1 &&
			segs[k-1].op != diffmatchpatch.DiffEqual && segs[k+1].op != diffmatchpatch.DiffEqual &&
			strings.TrimSpace(s.text) == "" {
			out = append(out, segment{diffmatchpatch.DiffDelete, s.text}, segment{diffmatchpatch.DiffInsert, s.text})
			continue
		}
		out = append(out, s)
	}
	return out
}

// regroup merges each run of changes into one deletion then one insertion.
func regroup(segs []segment) []segment {
	var out []segment
	var del, ins strings.Builder
	flush := func() {
		if del.Len() > 0 {
			out = append(out, segment{diffmatchpatch.DiffDelete, del.String()})
		}
		if ins.Len() > 0 {
			out = append(out, segment{diffmatchpatch.DiffInsert, ins.String()})
		}
		del.Reset()
		ins.Reset()
	}
	for _, s := range segs {
		switch s.op {
		case diffmatchpatch.DiffDelete:
			del.WriteString(s.text)
		case diffmatchpatch.DiffInsert:
			ins.WriteString(s.text)
		default:
			flush()
			out = append(out, s)
		}
	}
	flush()
	return out
}
