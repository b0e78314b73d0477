package pagetext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLine is where a long run of inline text is wrapped at a word boundary,
// so that one edit in a wall of text does not make the whole wall one
// changed line, and word diffs stay cheap.
const maxLine = 4096

// maxTitle caps a page title in runes: titles end up in feed entry titles.
const maxTitle = 300

// blockTags end the current line where they start and where they end.
var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true,
	"body": true, "br": true, "caption": true, "center": true, "dd": true,
	"details": true, "dialog": true, "div": true, "dl": true, "dt": true,
	"fieldset": true, "figcaption": true, "figure": true, "footer": true,
	"form": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
	"h6": true, "header": true, "hgroup": true, "hr": true, "html": true,
	"legend": true, "li": true, "main": true, "menu": true, "nav": true,
	"ol": true, "p": true, "pre": true, "section": true, "summary": true,
	"table": true, "tbody": true, "tfoot": true, "thead": true, "tr": true,
	"ul": true,
}

// skipTags hold no text a reader sees, or text (scripts, styles, form
// controls, icons) that changes without the page's content changing.
var skipTags = map[string]bool{
	"button": true, "canvas": true, "iframe": true, "noembed": true,
	"noframes": true, "noscript": true, "object": true, "script": true,
	"select": true, "style": true, "svg": true, "template": true,
	"textarea": true, "xmp": true,
}

// lineBuilder turns a stream of start tags, end tags and text into the
// normalised lines of a page. The tree walker and the streaming tokenizer
// both feed it, so big and small pages follow the same line rules.
type lineBuilder struct {
	max       int // bytes of text kept, newlines included
	lines     []string
	size      int
	cur       strings.Builder
	space     bool // a space is due before the next word
	skip      int  // depth inside skipTags
	pre       int  // depth inside <pre>
	truncated bool
	elements  int

	inTitle, inH1 bool
	title, h1     strings.Builder
	titleDone     bool
	h1Done        bool
}

func newLineBuilder(max int) *lineBuilder { return &lineBuilder{max: max} }

func (b *lineBuilder) full() bool { return b.truncated }

func (b *lineBuilder) start(tag string, alt string) {
	b.elements++
	switch {
	case skipTags[tag]:
		b.skip++
		return
	case b.skip > 0:
		return
	case tag == "title":
		b.inTitle = !b.titleDone
		return
	case tag == "h1":
		b.inH1 = !b.h1Done
	case tag == "pre":
		b.pre++
	case tag == "td" || tag == "th":
		if b.cur.Len() > 0 {
			b.space = true
			b.word("|")
			b.space = true
		}
		return
	case tag == "img" && alt != "":
		b.text("[" + alt + "]")
		return
	}
	if blockTags[tag] {
		b.flush()
	}
}

func (b *lineBuilder) end(tag string) {
	switch {
	case skipTags[tag]:
		if b.skip > 0 {
			b.skip--
		}
		return
	case b.skip > 0:
		return
	case tag == "title":
		if b.inTitle {
			b.inTitle, b.titleDone = false, true
		}
		return
	case tag == "h1":
		if b.inH1 {
			b.inH1, b.h1Done = false, true
		}
	case tag == "pre":
		if b.pre > 0 {
			b.pre--
		}
	}
	if blockTags[tag] {
		b.flush()
	}
}

// text takes a text node's content, already decoded from entities.
func (b *lineBuilder) text(s string) {
	if b.skip > 0 || b.truncated {
		return
	}
	if b.inTitle {
		if b.title.Len() < maxTitle*utf8.UTFMax {
			b.title.WriteString(s)
			b.title.WriteByte(' ')
		}
		return
	}
	if b.inH1 && b.h1.Len() < maxTitle*utf8.UTFMax {
		b.h1.WriteString(s)
	}
	start := -1
	for i := 0; i < len(s); {
		c := s[i]
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isSpace(r) {
			if start >= 0 {
				b.word(s[start:i])
				start = -1
			}
			if r == '\n' && b.pre > 0 {
				b.flush()
			}
			b.space = true
		} else if start < 0 {
			start = i
		}
		if b.truncated {
			return
		}
		i += size
	}
	if start >= 0 {
		b.word(s[start:])
	}
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

func (b *lineBuilder) word(w string) {
	w = cleanWord(w)
	if w == "" {
		return
	}
	if b.cur.Len() > 0 && b.cur.Len()+len(w) >= maxLine {
		b.flush()
	}
	if b.space && b.cur.Len() > 0 {
		b.cur.WriteByte(' ')
	}
	b.space = false
	b.cur.WriteString(w)
	if b.size+b.cur.Len() > b.max {
		b.flush()
	}
}

// flush ends the current line; past the text cap it keeps what fits, cut
// at a rune boundary, and stops the builder.
func (b *lineBuilder) flush() {
	b.space = false
	if b.cur.Len() == 0 || b.truncated {
		b.cur.Reset()
		return
	}
	line := b.cur.String()
	b.cur.Reset()
	sep := 0
	if len(b.lines) > 0 {
		sep = 1
	}
	if room := b.max - b.size - sep; len(line) > room {
		b.truncated = true
		line = strings.TrimSpace(cutRunes(line, room))
		if line == "" {
			return
		}
	}
	b.lines = append(b.lines, line)
	b.size += sep + len(line)
}

// finish returns the text: the lines joined by newlines.
func (b *lineBuilder) finish() string {
	b.flush()
	return strings.Join(b.lines, "\n")
}

// pageTitle is the <title>, or failing that the first <h1>.
func (b *lineBuilder) pageTitle() string {
	if t := cleanTitle(b.title.String()); t != "" {
		return t
	}
	return cleanTitle(b.h1.String())
}

// cleanWord drops control characters and replaces invalid UTF-8, so
// stored text is safe to show anywhere. Clean words, nearly all of them,
// are returned as they are.
func cleanWord(w string) string {
	clean := true
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 0x20 || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return w
	}
	var sb strings.Builder
	for _, r := range w {
		if !unicode.IsControl(r) {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// cleanTitle collapses whitespace, drops control characters and caps the
// length in runes.
func cleanTitle(s string) string {
	var sb strings.Builder
	for _, w := range strings.Fields(s) {
		if w = cleanWord(w); w == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(w)
	}
	t := sb.String()
	if utf8.RuneCountInString(t) > maxTitle {
		t = truncateRunes(t, maxTitle)
	}
	return t
}

// cutRunes returns the longest prefix of s of at most n bytes that does not
// split a rune.
func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// truncateRunes shortens s to at most n runes, ending with "…", at a word
// boundary when one is near enough.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, i := 0, 0
	for pos := range s {
		if i == n-1 {
			cut = pos
			break
		}
		i++
	}
	head := s[:cut]
	if sp := strings.LastIndexByte(head, ' '); sp > len(head)*2/3 {
		head = head[:sp]
	}
	return strings.TrimRight(head, " ") + "…"
}
