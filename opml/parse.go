// Package opml reads and writes OPML, the outline files feed readers
// import and export subscriptions with: a parser for the files people
// upload, with limits, and a writer for the export of everything a user
// follows.
package opml

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html/charset"

	"tidings/feeds"
)

// Limits Parse applies besides its byte limit.
const (
	MaxOutlines = 5000 // <outline> elements in <body>, folders included
	MaxDepth    = 50   // levels of nested outlines
	// MaxTitle bounds an outline's title, in characters: a follow keeps
	// it, and a page shows it.
	MaxTitle = 200
)

// cutTitle cuts s to at most n characters, the last an ellipsis.
func cutTitle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ErrTooLarge is wrapped by the error Parse returns when the file
// is larger than its byte limit.
var ErrTooLarge = errors.New("opml: the file is too large")

// Outline is one subscription read from an imported OPML file.
type Outline struct {
	Title   string // the title attribute, else text; may be empty
	XMLURL  string // absolute http or https, or empty
	HTMLURL string // absolute http or https, or empty
}

// Parse reads an OPML 1.0 or 2.0 file and returns, in document order,
// every outline of its body, at any depth, that has an xmlUrl or an
// htmlUrl (attribute names in any case). Outlines with the same xmlUrl
// (or, without one, the same htmlUrl) are merged into the first, which
// takes a missing title or htmlUrl from the others. Addresses are trimmed;
// one that is not an absolute http or https address is dropped and
// explained in skipped, and an outline left with no address is left out.
//
// At most maxBytes are read; a larger file gives an error wrapping
// ErrTooLarge. More than MaxOutlines outlines or elements nested
// deeper than MaxDepth outlines are errors too. Entities are never
// expanded: a file declaring any is refused. Errors are sentences a person
// can act on; when no outline is kept the error comes with skipped.
func Parse(r io.Reader, maxBytes int64) (outlines []Outline, skipped []string, err error) {
	if maxBytes <= 0 {
		return nil, nil, fmt.Errorf("opml: the size limit %d is not positive", maxBytes)
	}
	in := &opmlReader{r: r, left: maxBytes}
	p := &opmlParser{seen: make(map[string]int)}
	err = p.parse(in)
	switch {
	case in.over:
		return nil, nil, fmt.Errorf("%w (the limit is %s)", ErrTooLarge, byteSize(maxBytes))
	case in.err != nil:
		return nil, nil, fmt.Errorf("opml: read the file: %w", in.err)
	case err != nil:
		return nil, nil, err
	case len(p.outlines) == 0 && len(p.skipped) > 0:
		return nil, p.skipped, errors.New("opml: none of the file's outlines has an http or https address")
	case len(p.outlines) == 0:
		return nil, nil, errors.New("opml: the file has no outlines with feed or site addresses")
	}
	return p.outlines, p.skipped, nil
}

var errLimit = errors.New("opml: byte limit reached")

// opmlReader reads at most left bytes from r. It then reads one byte more
// to tell a file of exactly the limit from a larger one. It records why it
// failed, as encoding/xml may report a read error in its own words.
type opmlReader struct {
	r    io.Reader
	left int64
	over bool
	err  error
}

func (o *opmlReader) Read(p []byte) (int, error) {
	if o.over {
		return 0, errLimit
	}
	if o.left <= 0 {
		var probe [1]byte
		n, err := o.r.Read(probe[:])
		if n > 0 {
			o.over = true
			return 0, errLimit
		}
		return 0, o.fail(err)
	}
	if int64(len(p)) > o.left {
		p = p[:o.left]
	}
	n, err := o.r.Read(p)
	o.left -= int64(n)
	return n, o.fail(err)
}

func (o *opmlReader) fail(err error) error {
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	if err != nil {
		o.err = err
	}
	return err
}

// opmlParser collects outlines from a token stream, so that memory grows
// with what is kept rather than with the document's tree.
type opmlParser struct {
	outlines   []Outline
	skipped    []string
	seen       map[string]int // dedupe key to index in outlines
	count      int            // outline elements met in <body>
	badCharset string

	depth     int // open elements
	bodyDepth int // depth of the open <body>, 0 outside it
	rootSeen  bool
	rootDone  bool
	bodySeen  bool
	anything  bool // a token other than white space was read
}

func (p *opmlParser) parse(r io.Reader) error {
	dec := p.decoder(r)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return p.xmlError(err)
		}
		if err := p.token(tok); err != nil {
			return err
		}
	}
	switch {
	case p.rootDone:
		return nil
	case !p.anything:
		return errors.New("opml: the file is empty")
	}
	return errors.New("opml: the file is not OPML: it has no <opml> element")
}

func (p *opmlParser) token(tok xml.Token) error {
	if p.rootDone {
		// Reading on to the end keeps the byte limit a limit on the
		// file, not on where its root element happens to end.
		if !blank(tok) {
			return errors.New("opml: the file is not well-formed XML: it goes on after </opml>")
		}
		return nil
	}
	switch t := tok.(type) {
	case xml.StartElement:
		return p.start(t)
	case xml.EndElement:
		p.depth--
		if p.depth < p.bodyDepth {
			p.bodyDepth = 0
		}
		if p.depth == 0 {
			if !p.bodySeen {
				return errors.New("opml: the file has no <body> element")
			}
			p.rootDone = true
		}
	case xml.CharData:
		if len(bytes.TrimSpace(t)) == 0 {
			return nil
		}
		if !p.rootSeen {
			return errors.New("opml: the file is not XML: it starts with text, not with <opml>")
		}
	case xml.Directive:
		if bytes.Contains(t, []byte("<!ENTITY")) {
			return errors.New("opml: the file declares XML entities, which are not accepted")
		}
	}
	p.anything = true
	return nil
}

func (p *opmlParser) start(t xml.StartElement) error {
	p.depth++
	p.anything = true
	if p.depth > MaxDepth+2 {
		return fmt.Errorf("opml: the file nests elements more than %d levels deep", MaxDepth)
	}
	name := t.Name.Local
	switch {
	case !p.rootSeen:
		if !strings.EqualFold(name, "opml") {
			return fmt.Errorf("opml: the file is not OPML: the root element is <%s>", name)
		}
		p.rootSeen = true
	case p.depth == 2 && strings.EqualFold(name, "body"):
		p.bodySeen, p.bodyDepth = true, p.depth
	case p.bodyDepth > 0 && strings.EqualFold(name, "outline"):
		return p.outline(t)
	}
	return nil
}

// blank reports whether tok may follow the root element: white space, a
// comment or a processing instruction.
func blank(tok xml.Token) bool {
	switch t := tok.(type) {
	case xml.CharData:
		return len(bytes.TrimSpace(t)) == 0
	case xml.Comment, xml.ProcInst:
		return true
	}
	return false
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decoder reads r as UTF-8, UTF-16 after a byte-order mark, or the
// charset the XML declaration names.
func (p *opmlParser) decoder(r io.Reader) *xml.Decoder {
	br := bufio.NewReader(r)
	var in io.Reader = br
	fromBOM := true
	head, _ := br.Peek(3)
	switch {
	case bytes.HasPrefix(head, utf8BOM):
		_, _ = br.Discard(3)
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		_, _ = br.Discard(2)
		in, _ = charset.NewReaderLabel("utf-16be", br)
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		_, _ = br.Discard(2)
		in, _ = charset.NewReaderLabel("utf-16le", br)
	default:
		fromBOM = false
	}
	dec := xml.NewDecoder(in)
	dec.Strict = true
	// Named HTML entities (&eacute;) are common in hand-made exports. The
	// map is fixed: entities declared in the file are never expanded.
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		// A byte-order mark is authoritative over the declaration.
		if fromBOM {
			return in, nil
		}
		cr, err := charset.NewReaderLabel(label, in)
		if err != nil {
			p.badCharset = label
		}
		return cr, err
	}
	return dec
}

func (p *opmlParser) xmlError(err error) error {
	var syn *xml.SyntaxError
	switch {
	case p.badCharset != "":
		return fmt.Errorf("opml: the file's character encoding %q is not supported", p.badCharset)
	case errors.As(err, &syn):
		return fmt.Errorf("opml: the file is not well-formed XML (line %d): %s", syn.Line, syn.Msg)
	}
	return fmt.Errorf("opml: the file is not well-formed XML: %w", err)
}

func (p *opmlParser) outline(t xml.StartElement) error {
	p.count++
	if p.count > MaxOutlines {
		return fmt.Errorf("opml: the file has more than %d outlines", MaxOutlines)
	}
	var text, title, xmlURL, htmlURL string
	for _, a := range t.Attr {
		if a.Name.Space != "" {
			continue
		}
		switch strings.ToLower(a.Name.Local) {
		case "text":
			setFirst(&text, a.Value)
		case "title":
			setFirst(&title, a.Value)
		case "xmlurl":
			setFirst(&xmlURL, a.Value)
		case "htmlurl":
			setFirst(&htmlURL, a.Value)
		}
	}
	o := Outline{Title: cleanLine(title)}
	if o.Title == "" {
		o.Title = cleanLine(text)
	}
	o.Title = cutTitle(o.Title, MaxTitle)
	o.XMLURL = p.checkURL(o.Title, xmlURL)
	o.HTMLURL = p.checkURL(o.Title, htmlURL)
	if o.XMLURL != "" || o.HTMLURL != "" {
		p.add(o)
	}
	return nil
}

// setFirst keeps the first non-blank value among attributes whose names
// differ only in case.
func setFirst(dst *string, v string) {
	if *dst == "" && strings.TrimSpace(v) != "" {
		*dst = v
	}
}

func (p *opmlParser) checkURL(title, raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	if u := feeds.SafeURL(raw); u != "" {
		return u
	}
	label := fmt.Sprintf("outline %d", p.count)
	if title != "" {
		label = fmt.Sprintf("outline %q", shorten(title))
	}
	p.skipped = append(p.skipped, fmt.Sprintf("%s: %q is not an http or https address", label, shorten(raw)))
	return ""
}

func (p *opmlParser) add(o Outline) {
	key := "html " + urlKey(o.HTMLURL)
	if o.XMLURL != "" {
		key = "xml " + urlKey(o.XMLURL)
	}
	if i, ok := p.seen[key]; ok {
		prev := &p.outlines[i]
		if prev.Title == "" {
			prev.Title = o.Title
		}
		if prev.HTMLURL == "" {
			prev.HTMLURL = o.HTMLURL
		}
		return
	}
	p.seen[key] = len(p.outlines)
	p.outlines = append(p.outlines, o)
}

// urlKey makes addresses that differ only in the host's case or an empty
// path compare equal.
func urlKey(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	u.Host = strings.ToLower(u.Host)
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/"
	}
	return u.String()
}

// shorten cuts s to 100 characters for a message.
func shorten(s string) string {
	const limit = 100
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
