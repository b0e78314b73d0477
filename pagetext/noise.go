package pagetext

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Noise is what a page's text holds that changes without news: lines a
// site's pages carry that move by themselves (a visitor counter, "Last
// update: <date>", a build stamp), lines of a shape the site changes on
// many pages at once (a release number in every navbar), lines that only
// list other pages of the site by title (a "recently updated" list), and
// what a person asked to ignore. Such lines are left out of both texts
// before they are compared, so that they neither make a change nor show
// in one.
type Noise struct {
	// Shapes are lines, as Shape writes them, that the site changes on
	// many pages at once (LearnShapes).
	Shapes map[string]bool
	// Titles are the titles of the site's pages, as titleKey writes them.
	Titles map[string]bool
	// Rules are a person's own (ParseRule).
	Rules []Rule
	// Remove are the parts of its pages a person asked to ignore
	// (ParseSelector); Since is when the newest of them was given.
	Remove []Selector
	Since  time.Time

	// prefixes and slots are the widgets learned (see Widgets).
	prefixes []string
	slots    []slot
}

// Rebase reports whether a page's text read at fetchedAt was read before
// the newest of Remove was given: it still holds what that selector now
// leaves out, so it is no baseline to compare with, and the page is read
// again whole.
func (n *Noise) Rebase(fetchedAt time.Time) bool {
	return n != nil && len(n.Remove) > 0 && fetchedAt.Before(n.Since)
}

// Selectors are the parts of its pages to leave out (nil-safe).
func (n *Noise) Selectors() []Selector {
	if n == nil {
		return nil
	}
	return n.Remove
}

// Rule is a person's rule for a site: a line that contains Text (case
// aside), or that Pattern matches, is ignored.
type Rule struct {
	Text    string
	Pattern *regexp.Regexp
	written string
	cost    *cost
}

// MaxRuleProgram bounds a pattern's compiled program, in instructions:
// RE2 matches in time linear in the text, but times the program's size,
// which a repetition multiplies (/.{0,1000}/ is 2,002 instructions, 4 s
// on a page of 250 KiB; /.{0,100}/ is 202).
const MaxRuleProgram = 250

// ParseRule reads a text rule as a person writes it: "/…/" is a regular
// expression (RE2: no backtracking, and a program of at most
// MaxRuleProgram instructions), anything else a piece of text a line must
// contain.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && strings.HasPrefix(s, "/") && strings.HasSuffix(s, "/") {
		expr := "(?i)" + s[1:len(s)-1]
		size, err := programSize(expr)
		if err != nil {
			return Rule{}, patternError(err)
		}
		if size > MaxRuleProgram {
			return Rule{}, fmt.Errorf("the pattern would cost %d steps a character, more than the %d a rule may: write its repetitions smaller (such as {0,20} for {0,1000})", size, MaxRuleProgram)
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return Rule{}, patternError(err)
		}
		return Rule{Pattern: re, written: s, cost: &cost{weight: int64(size)}}, nil
	}
	return Rule{Text: strings.ToLower(s), written: s, cost: &cost{weight: 1}}, nil
}

// patternError says what is wrong with a pattern as it was written: the
// regexp package's error names the expression compiled, with the (?i)
// that ParseRule adds, which nobody typed.
func patternError(err error) error {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("%s in `%s`", se.Code, strings.TrimPrefix(se.Expr, "(?i)"))
}

// programSize is the number of instructions expr compiles to.
func programSize(expr string) (int, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return 0, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0, err
	}
	return len(prog.Inst), nil
}

// String is the rule as written.
func (r Rule) String() string { return r.written }

func (r Rule) matches(line, lower string) bool {
	if !r.cost.charge(int64(len(line)) * r.weight()) {
		return false
	}
	if r.Pattern != nil {
		return r.Pattern.MatchString(line)
	}
	return r.Text != "" && strings.Contains(lower, r.Text)
}

func (r Rule) weight() int64 {
	if r.cost == nil {
		return 1
	}
	return r.cost.weight
}

// Clone returns a copy that can be added to without changing n.
func (n *Noise) Clone() *Noise {
	if n == nil {
		return &Noise{}
	}
	return &Noise{Shapes: maps.Clone(n.Shapes), Titles: maps.Clone(n.Titles), Rules: slices.Clone(n.Rules),
		Remove: slices.Clone(n.Remove), Since: n.Since, prefixes: slices.Clone(n.prefixes), slots: slices.Clone(n.slots)}
}

// Learn adds what a harvest learned: the shapes LearnShapes found, and
// the widgets Widgets did.
func (n *Noise) Learn(shapes map[string]bool) {
	for s := range shapes {
		if n.Knows(s) || n.learnWidget(s) {
			continue
		}
		if n.Shapes == nil {
			n.Shapes = map[string]bool{}
		}
		n.Shapes[s] = true
	}
}

// Knows reports whether a learned pattern (a shape or a widget) is
// known already.
func (n *Noise) Knows(pattern string) bool {
	if n == nil {
		return false
	}
	if s, ok := parseSlot(pattern); ok {
		return slices.Contains(n.slots, s)
	}
	if IsWidget(pattern) {
		return slices.Contains(n.prefixes, strings.TrimSuffix(pattern, widgetEllipsis))
	}
	return n.Shapes[pattern]
}

// Ignores reports whether the line is noise.
func (n *Noise) Ignores(line string) bool {
	if Volatile(line) {
		return true
	}
	if n == nil {
		return false
	}
	if len(n.Shapes) > 0 && n.Shapes[Shape(line)] || n.widgetLine(line) {
		return true
	}
	if len(n.Titles) > 0 && n.Titles[titleKey(line)] {
		return true
	}
	if len(n.Rules) > 0 {
		lower := strings.ToLower(line)
		for _, r := range n.Rules {
			if r.matches(line, lower) {
				return true
			}
		}
	}
	return false
}

// Drop returns text without its noise lines.
func (n *Noise) Drop(text string) string {
	if text == "" {
		return text
	}
	text = n.dropWidgets(text)
	return dropIf(text, func(l string) bool { return l != "" && n.Ignores(l) })
}

// AddTitles records the titles of the site's pages: a line that is only
// one of them, with a date or not, lists that page and says nothing of the
// page it is on.
func (n *Noise) AddTitles(titles ...string) {
	for _, t := range titles {
		k := titleKey(t)
		if k == "" || len(strings.Fields(k)) < 2 && len(k) < 8 {
			// "Home", "Links": too common to stand for a page.
			continue
		}
		if n.Titles == nil {
			n.Titles = map[string]bool{}
		}
		n.Titles[k] = true
	}
}

// words splits a line into lower-case words: runs of letters and digits
// (and ©).
func words(line string) []string {
	return strings.FieldsFunc(strings.ToLower(line), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '©'
	})
}

// maxVolatileWords: a longer line is prose, whatever words it uses.
const maxVolatileWords = 12

// Volatile reports whether a line is a counter or a timestamp: it holds a
// number, and besides numbers and dates only the words such lines are
// made of ("This page has been visited 1,234 times", "Last update: 3
// November 2026", "Generated in 0.02 s", "Build 2026.11.25-4f2a"). A line
// that says anything else ("Updated the gallery with 3 pictures") is not.
func Volatile(line string) bool {
	ws := words(line)
	if len(ws) == 0 || len(ws) > maxVolatileWords {
		return false
	}
	digit := false
	for _, w := range ws {
		switch {
		case strings.ContainsFunc(w, unicode.IsDigit):
			digit = true
		case dateWords[w] || volatileWords[w]:
		default:
			return false
		}
	}
	return digit
}

// Shape writes a line with its numbers as "#" and its month and weekday
// names as "@": the lines a template fills in with a count or a date have
// one shape on every page and at every build.
func Shape(line string) string {
	var b strings.Builder
	rs := []rune(line)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsDigit(r):
			for i < len(rs) && unicode.IsDigit(rs[i]) {
				i++
			}
			b.WriteByte('#')
		case unicode.IsLetter(r):
			j := i
			for j < len(rs) && unicode.IsLetter(rs[j]) {
				j++
			}
			if w := string(rs[i:j]); dateWords[strings.ToLower(w)] {
				b.WriteByte('@')
			} else {
				b.WriteString(w)
			}
			i = j
		default:
			b.WriteRune(r)
			i++
		}
	}
	return b.String()
}

// LearnShapes finds the shapes of lines that changed only in their
// numbers or dates on at least minPages of the pages compared, and on a
// quarter of them: a template's line, not a page's news. Each pair is a
// page's text before and after. A shape needs words of its own (three
// letters at least), so that a line that is only a number is never one.
func LearnShapes(pairs [][2]string, minPages int) map[string]bool {
	count := map[string]int{}
	for _, p := range pairs {
		gone, came := lineDiffSets(p[0], p[1])
		seen := map[string]bool{}
		for l := range gone {
			s := Shape(l)
			if seen[s] || letters(s) < 3 || IsWidget(s) {
				continue
			}
			for m := range came {
				if Shape(m) == s {
					seen[s] = true
					count[s]++
					break
				}
			}
		}
	}
	out := map[string]bool{}
	for s, n := range count {
		if n >= minPages && n*4 >= len(pairs) {
			out[s] = true
		}
	}
	return out
}

// lineDiffSets returns the lines only old has and those only new has.
func lineDiffSets(old, new string) (gone, came map[string]bool) {
	in := func(t string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(t, "\n") {
			if l != "" {
				m[l] = true
			}
		}
		return m
	}
	o, n := in(old), in(new)
	gone, came = map[string]bool{}, map[string]bool{}
	for l := range o {
		if !n[l] {
			gone[l] = true
		}
	}
	for l := range n {
		if !o[l] {
			came[l] = true
		}
	}
	return gone, came
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// titleKey is a line as a list of pages writes a title: its words, dates
// and the words of such lists ("new", "updated") left out.
func titleKey(line string) string {
	ws := words(line)
	if len(ws) > maxVolatileWords {
		return ""
	}
	kept := ws[:0:0]
	for _, w := range ws {
		if dateWords[w] || listWords[w] || strings.ContainsFunc(w, unicode.IsDigit) {
			continue
		}
		kept = append(kept, w)
	}
	return strings.Join(kept, " ")
}

var dateWords = wordSet(`january february march april may june july august
september october november december jan feb mar apr jun jul aug sep sept oct
nov dec monday tuesday wednesday thursday friday saturday sunday mon tue tues
wed thu thur thurs fri sat sun am pm utc gmt cet cest est edt pst pdt st nd rd
th t z`)

var volatileWords = wordSet(`this page has have had been was is visited visits
visit visitor visitors views view viewed hits hit times you are the of since
counter online users user guests members people now currently last updated
update modified modification changed generated built build rendered compiled
deployed published on at as in served seconds second ms s sec secs queries
query took copyright © c from commit rev revision date time today ago
minutes minute min mins hours hour hr days day weeks week months month years
year`)

var listWords = wordSet(`new updated update added changed recently recent latest`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
