package hints

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
)

// XMLTokens reads an XML document's tokens exactly as encoding/xml's
// Decoder.RawToken does, faster for the plain markup sitemaps and change
// lists are made of: ASCII names, quoted attribute values, character data
// and the five named entities, after at most a declaration of version 1.0
// in UTF-8. encoding/xml reads a byte at a time through an interface, and
// a 50,000-entry change list spent most of its parse there: with this
// reader the parse of one takes a little over half the time
// (BenchmarkParseChangeList), of a 50,000-URL sitemap about two thirds
// (BenchmarkParse50k).
//
// At the first token that is anything else (a comment, CDATA, a DOCTYPE,
// another processing instruction, a character reference, a carriage
// return, a byte outside ASCII, a value the clipper would cut, a token
// longer than maxFastToken, and every error) it hands that token and the rest of the document to an
// encoding/xml Decoder, which owns every rule from there on. So what it
// returns is what encoding/xml returns, token for token and error for
// error, line numbers included; FuzzXMLTokensAsEncodingXML holds it to
// that.
type XMLTokens struct {
	src     io.Reader
	limit   int // of a value's bytes, as ClipXML's
	charset func(label string, in io.Reader) (io.Reader, error)

	buf      []byte
	pos, end int
	offset   int64 // of buf[pos] in the document
	eof      bool
	empty    int   // reads in a row that returned nothing
	readErr  error // what src returned after the bytes in buf
	line     int   // at buf[pos]: the decoder's line after the last token

	toClose  xml.Name // the element a self-closing tag leaves to end
	mustEnd  bool
	scratch  []byte // character data with entities replaced
	names    map[string]string
	slow     *xml.Decoder // the rest of the document, once handed over
	lineBase int          // lines read before slow began
}

// maxFastToken bounds a token read on the fast path: a longer one (ClipXML
// lets 1 MiB of markup through) is encoding/xml's, which holds it anyway.
const maxFastToken = 64 << 10

// NewXMLTokens reads the document r as an encoding/xml Decoder reads
// ClipXML(r, limit), or r itself when limit is 0: a value (a run of
// character data, an attribute value) of more than limit bytes is
// encoding/xml's, behind the clipper, and one within it passes the
// clipper untouched, so the fast path costs no clipping. charset is the
// Decoder.CharsetReader the declaration's encoding is handed to (a
// declared encoding other than UTF-8 is read by encoding/xml).
func NewXMLTokens(r io.Reader, limit int, charset func(label string, in io.Reader) (io.Reader, error)) *XMLTokens {
	return &XMLTokens{src: r, limit: limit, charset: charset, buf: make([]byte, 32<<10), line: 1, names: map[string]string{}}
}

// Line is the line of the end of the last token, as Decoder.InputPos
// gives it.
func (t *XMLTokens) Line() int {
	if t.slow != nil {
		l, _ := t.slow.InputPos()
		return t.lineBase + l
	}
	return t.line
}

// RawToken returns the next token, as Decoder.RawToken would: its data is
// valid until the next call.
func (t *XMLTokens) RawToken() (xml.Token, error) {
	if t.slow != nil {
		tok, err := t.slow.RawToken()
		return tok, t.shift(err)
	}
	if t.mustEnd {
		t.mustEnd = false
		return xml.EndElement{Name: t.toClose}, nil
	}
	for {
		if t.pos == t.end && t.eof && t.readErr == nil {
			return nil, io.EOF
		}
		tok, n, st := t.scan()
		switch st {
		case scanned:
			t.line += bytes.Count(t.buf[t.pos:t.pos+n], []byte{'\n'})
			t.pos += n
			t.offset += int64(n)
			return tok, nil
		case short:
			if !t.eof && t.end-t.pos < maxFastToken {
				t.fill()
				continue
			}
		}
		t.handOver()
		tok, err := t.slow.RawToken()
		return tok, t.shift(err)
	}
}

// fill reads more of the document behind what is left in buf.
func (t *XMLTokens) fill() {
	if t.pos > 0 {
		t.end = copy(t.buf, t.buf[t.pos:t.end])
		t.pos = 0
	}
	if t.end == len(t.buf) {
		t.buf = append(t.buf, make([]byte, len(t.buf))...)
	}
	n, err := t.src.Read(t.buf[t.end:])
	t.end += n
	if n > 0 {
		t.empty = 0
	} else {
		t.empty++
	}
	if err == nil && t.empty == 100 {
		err = io.ErrNoProgress // as bufio, under encoding/xml, says
	}
	if err != nil {
		t.eof = true
		if err != io.EOF {
			t.readErr = err
		}
	}
}

// handOver gives the token at buf[pos] and everything after it to
// encoding/xml.
func (t *XMLTokens) handOver() {
	rest := []io.Reader{bytes.NewReader(bytes.Clone(t.buf[t.pos:t.end]))}
	switch {
	case t.readErr != nil:
		rest = append(rest, errReader{t.readErr})
	case !t.eof:
		rest = append(rest, t.src)
	}
	var r io.Reader = io.MultiReader(rest...)
	if t.limit > 0 {
		// At a token's start, as the clipper of the whole document
		// would be there.
		r = ClipXML(r, t.limit)
	}
	t.slow = xml.NewDecoder(r)
	t.slow.CharsetReader = t.charset
	t.lineBase = t.line - 1
	t.buf, t.scratch = nil, nil
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// shift gives a syntax error of the decoder the rest was handed to the
// line it has in the whole document.
func (t *XMLTokens) shift(err error) error {
	var se *xml.SyntaxError
	if t.lineBase == 0 || !errors.As(err, &se) {
		return err
	}
	return &xml.SyntaxError{Msg: se.Msg, Line: se.Line + t.lineBase}
}

type scanStatus int

const (
	scanned scanStatus = iota // a token of n bytes
	short                     // the token may go on past what is read
	other                     // not for the fast path
)

// scan reads the token at buf[pos].
func (t *XMLTokens) scan() (xml.Token, int, scanStatus) {
	b := t.buf[t.pos:t.end]
	if len(b) == 0 {
		return nil, 0, short
	}
	if b[0] != '<' {
		return t.charData(b)
	}
	if len(b) < 2 {
		return nil, 0, short
	}
	switch b[1] {
	case '/':
		return t.endTag(b)
	case '?':
		if t.offset == 0 {
			return t.declaration(b)
		}
		return nil, 0, other
	case '!':
		return nil, 0, other
	}
	return t.startTag(b)
}

// charData reads character data up to the next '<' or the end of the
// document.
func (t *XMLTokens) charData(b []byte) (xml.Token, int, scanStatus) {
	n := bytes.IndexByte(b, '<')
	if n < 0 {
		if !t.eof {
			return nil, 0, short
		}
		n = len(b)
	}
	if t.clips(n) {
		return nil, 0, other
	}
	text, ok := t.plainValue(b[:n], true)
	if !ok {
		return nil, 0, other
	}
	return xml.CharData(text), n, scanned
}

// plainValue checks a run of character data (inText) or an attribute
// value for what the fast path takes, and replaces its five named
// entities; false for anything encoding/xml must read.
func (t *XMLTokens) plainValue(v []byte, inText bool) ([]byte, bool) {
	escaped := false
	for i, c := range v {
		switch {
		case c == '&':
			escaped = true
		case c == '\n' || c == '\t':
		case c < 0x20 || c >= 0x80 || c == '<':
			return nil, false
		case inText && c == ']' && i+2 < len(v) && v[i+1] == ']' && v[i+2] == '>':
			// "]]>" is an error outside CDATA, not in a quoted value:
			// encoding/xml's.
			return nil, false
		}
	}
	if !escaped {
		return v, true
	}
	return t.unescape(v)
}

// clips reports whether a value of n bytes is one ClipXML would cut.
func (t *XMLTokens) clips(n int) bool { return t.limit > 0 && n > t.limit }

// unescape replaces the five named entities in s; any other reference is
// encoding/xml's.
func (t *XMLTokens) unescape(s []byte) ([]byte, bool) {
	out := t.scratch[:0]
	for len(s) > 0 {
		i := bytes.IndexByte(s, '&')
		if i < 0 {
			out = append(out, s...)
			break
		}
		out = append(out, s[:i]...)
		s = s[i:]
		semi := bytes.IndexByte(s, ';')
		if semi < 0 {
			return nil, false
		}
		switch string(s[1:semi]) {
		case "lt":
			out = append(out, '<')
		case "gt":
			out = append(out, '>')
		case "amp":
			out = append(out, '&')
		case "apos":
			out = append(out, '\'')
		case "quot":
			out = append(out, '"')
		default:
			return nil, false
		}
		s = s[semi+1:]
	}
	t.scratch = out
	return out, true
}

// endTag reads </name> with optional space before the '>'.
func (t *XMLTokens) endTag(b []byte) (xml.Token, int, scanStatus) {
	name, i, st := t.name(b, 2)
	if st != scanned {
		return nil, 0, st
	}
	i, st = skipSpace(b, i)
	if st != scanned {
		return nil, 0, st
	}
	if b[i] != '>' {
		return nil, 0, other
	}
	return xml.EndElement{Name: name}, i + 1, scanned
}

// startTag reads <name attr="value" ...> or <name .../>.
func (t *XMLTokens) startTag(b []byte) (xml.Token, int, scanStatus) {
	name, i, st := t.name(b, 1)
	if st != scanned {
		return nil, 0, st
	}
	attrs := []xml.Attr{} // as encoding/xml's: empty, not nil
	for {
		if i, st = skipSpace(b, i); st != scanned {
			return nil, 0, st
		}
		switch b[i] {
		case '>':
			return xml.StartElement{Name: name, Attr: attrs}, i + 1, scanned
		case '/':
			if i+1 == len(b) {
				return nil, 0, short
			}
			if b[i+1] != '>' {
				return nil, 0, other
			}
			t.toClose, t.mustEnd = name, true
			return xml.StartElement{Name: name, Attr: attrs}, i + 2, scanned
		}
		var a xml.Attr
		if a.Name, i, st = t.name(b, i); st != scanned {
			return nil, 0, st
		}
		if i, st = skipSpace(b, i); st != scanned {
			return nil, 0, st
		}
		if b[i] != '=' {
			return nil, 0, other
		}
		if i, st = skipSpace(b, i+1); st != scanned {
			return nil, 0, st
		}
		if a.Value, i, st = t.attrValue(b, i); st != scanned {
			return nil, 0, st
		}
		if cap(attrs) == 0 {
			attrs = make([]xml.Attr, 0, 4) // room for the usual few at once
		}
		attrs = append(attrs, a)
	}
}

// attrValue reads a quoted value at b[i].
func (t *XMLTokens) attrValue(b []byte, i int) (string, int, scanStatus) {
	q := b[i]
	if q != '"' && q != '\'' {
		return "", 0, other
	}
	n := bytes.IndexByte(b[i+1:], q)
	if n < 0 {
		return "", 0, short
	}
	if t.clips(n) {
		return "", 0, other
	}
	v, ok := t.plainValue(b[i+1:i+1+n], false)
	if !ok {
		return "", 0, other
	}
	return string(v), i + 2 + n, scanned
}

// name reads an element or attribute name at b[i]: ASCII, starting with a
// letter or '_', with at most one ':' between a prefix and a local name.
func (t *XMLTokens) name(b []byte, i int) (xml.Name, int, scanStatus) {
	start, colon := i, -1
	for ; i < len(b); i++ {
		c := b[i]
		if isNameByte(c) {
			if c == ':' {
				if colon >= 0 {
					return xml.Name{}, 0, other
				}
				colon = i
			}
			continue
		}
		if c >= 0x80 {
			return xml.Name{}, 0, other
		}
		break
	}
	if i == len(b) {
		return xml.Name{}, 0, short
	}
	if i == start || !isNameStart(b[start]) || colon == i-1 {
		return xml.Name{}, 0, other
	}
	if colon < 0 {
		return xml.Name{Local: t.intern(b[start:i])}, i, scanned
	}
	return xml.Name{Space: t.intern(b[start:colon]), Local: t.intern(b[colon+1 : i])}, i, scanned
}

// intern spares the garbage of a name a document writes 50,000 times.
func (t *XMLTokens) intern(b []byte) string {
	if s, ok := t.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(t.names) < 256 {
		t.names[s] = s
	}
	return s
}

func isNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-'
}

func isNameStart(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_'
}

// skipSpace skips what encoding/xml takes for space in a tag.
func skipSpace(b []byte, i int) (int, scanStatus) {
	for ; i < len(b); i++ {
		switch b[i] {
		case ' ', '\n', '\t', '\r':
		default:
			return i, scanned
		}
	}
	return 0, short
}

// declaration reads an XML declaration at the start of the document, when
// it says version 1.0 and, if anything, UTF-8 and standalone: any other is
// encoding/xml's, which may switch the encoding.
func (t *XMLTokens) declaration(b []byte) (xml.Token, int, scanStatus) {
	const head = "<?xml "
	if len(b) < len(head) {
		return nil, 0, short
	}
	if string(b[:len(head)]) != head {
		return nil, 0, other
	}
	n := bytes.Index(b, []byte("?>"))
	if n < 0 {
		if len(b) > 256 {
			return nil, 0, other
		}
		return nil, 0, short
	}
	data := b[len(head):n]
	if !plainDeclaration(data) {
		return nil, 0, other
	}
	return xml.ProcInst{Target: "xml", Inst: data}, n + 2, scanned
}

// plainDeclaration: version="1.0", then optionally encoding="utf-8" (in
// any case) and standalone="yes" or "no", one space apart, each value in
// quotes of one kind, and spaces after.
func plainDeclaration(d []byte) bool {
	attr := func(name string, ok func(string) bool) bool {
		if !bytes.HasPrefix(d, []byte(name+"=")) || len(d) < len(name)+2 {
			return false
		}
		q := d[len(name)+1]
		if q != '"' && q != '\'' {
			return false
		}
		rest := d[len(name)+2:]
		end := bytes.IndexByte(rest, q)
		if end < 0 || bytes.ContainsAny(rest[:end], `"'`) || !ok(string(rest[:end])) {
			return false
		}
		d = rest[end+1:]
		return true
	}
	next := func(name string, ok func(string) bool) {
		if len(d) > 1 && d[0] == ' ' && bytes.HasPrefix(d[1:], []byte(name+"=")) {
			save := d
			d = d[1:]
			if !attr(name, ok) {
				d = save
			}
		}
	}
	if !attr("version", func(v string) bool { return v == "1.0" }) {
		return false
	}
	next("encoding", func(v string) bool { return bytes.EqualFold([]byte(v), []byte("utf-8")) })
	next("standalone", func(v string) bool { return v == "yes" || v == "no" })
	return len(bytes.Trim(d, " ")) == 0
}
