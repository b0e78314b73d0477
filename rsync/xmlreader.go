package rsync

import (
	"encoding/xml"
	"fmt"
	"io"

	"tidings/hints"
)

// maxDepth bounds element nesting. A ResourceSync document needs four
// levels (urlset, url, rs:md, nothing below); the cap keeps a hostile
// document from growing the element stack without end.
const maxDepth = 64

// xmlReader streams a document through hints.XMLTokens, encoding/xml's
// RawToken made fast for plain markup, and adds what Token would add: end tags checked
// against start tags and prefixes resolved to namespace URIs. It keeps the
// prefixes as written too, so that errors can quote elements as the
// publisher wrote them. Nothing is held beyond the open elements.
type xmlReader struct {
	dec   *hints.XMLTokens
	open  []openElem
	binds []binding // namespace declarations in scope, innermost last
	cur   elem      // the start tag last returned, reused to spare garbage
}

// tokKind tells what a token is; tokens are returned by value, not boxed in
// an interface, because a 50,000-entry list has half a million of them.
type tokKind int

const (
	tokOther tokKind = iota // comment, processing instruction, directive
	tokStart
	tokEnd
	tokText
)

type token struct {
	kind tokKind
	el   *elem  // tokStart: valid until the next call
	text []byte // tokText: valid until the next call
}

type openElem struct {
	name  xml.Name // as written: Space is the prefix
	binds int      // len(binds) before this element's declarations
}

type binding struct{ prefix, uri string }

// elem is a start tag with its names resolved.
type elem struct {
	raw   xml.Name   // as written
	space string     // the element's namespace URI
	attrs []xml.Attr // Space is the namespace URI, or "xmlns" for declarations
}

// fullName is the element's name as written, prefix included.
func (e *elem) fullName() string {
	if e.raw.Space == "" {
		return e.raw.Local
	}
	return e.raw.Space + ":" + e.raw.Local
}

// lookup returns the URI bound to prefix. An unbound prefix stands for
// itself, as encoding/xml's Token leaves it.
func (r *xmlReader) lookup(prefix string) string {
	if prefix == "xml" {
		return "http://www.w3.org/XML/1998/namespace"
	}
	for i := len(r.binds) - 1; i >= 0; i-- {
		if r.binds[i].prefix == prefix {
			return r.binds[i].uri
		}
	}
	if prefix == "" {
		return ""
	}
	return prefix
}

// next returns the next token. At the end of the input it returns io.EOF,
// or a syntax error when elements are still open.
func (r *xmlReader) next() (token, error) {
	tok, err := r.dec.RawToken()
	if err == io.EOF && len(r.open) > 0 {
		return token{}, r.syntaxError("unexpected EOF")
	}
	if err != nil {
		return token{}, err
	}
	switch t := tok.(type) {
	case xml.StartElement:
		el, err := r.start(t)
		return token{kind: tokStart, el: el}, err
	case xml.EndElement:
		return token{kind: tokEnd}, r.end(t)
	case xml.CharData:
		return token{kind: tokText, text: t}, nil
	}
	return token{}, nil
}

func (r *xmlReader) start(t xml.StartElement) (*elem, error) {
	if len(r.open) == maxDepth {
		return nil, r.syntaxError(fmt.Sprintf("elements nested more than %d deep", maxDepth))
	}
	r.open = append(r.open, openElem{name: t.Name, binds: len(r.binds)})
	for _, a := range t.Attr {
		switch {
		case a.Name.Space == "xmlns":
			r.binds = append(r.binds, binding{a.Name.Local, a.Value})
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			r.binds = append(r.binds, binding{"", a.Value})
		}
	}
	// Attributes are resolved now, while this element's declarations are
	// in scope; unprefixed ones are in no namespace, whatever the default.
	for i, a := range t.Attr {
		if a.Name.Space != "" && a.Name.Space != "xmlns" {
			t.Attr[i].Name.Space = r.lookup(a.Name.Space)
		}
	}
	r.cur = elem{raw: t.Name, space: r.lookup(t.Name.Space), attrs: t.Attr}
	return &r.cur, nil
}

func (r *xmlReader) end(t xml.EndElement) error {
	if len(r.open) == 0 {
		return r.syntaxError(fmt.Sprintf("unexpected end element </%s>", qname(t.Name)))
	}
	top := r.open[len(r.open)-1]
	if top.name != t.Name {
		return r.syntaxError(fmt.Sprintf("element <%s> closed by </%s>", qname(top.name), qname(t.Name)))
	}
	r.open = r.open[:len(r.open)-1]
	r.binds = r.binds[:top.binds]
	return nil
}

// skip consumes tokens up to the end of the element just started.
func (r *xmlReader) skip() error {
	depth := len(r.open)
	for len(r.open) >= depth {
		if _, err := r.next(); err != nil {
			return err
		}
	}
	return nil
}

// maxText bounds the character data text keeps of one element. The values
// tidings reads from element text are a URL (hints.MaxURLBytes) and a date,
// so a bound well above the longest URL with its indentation loses nothing,
// and a 45 MB <loc> is not copied again and again on its way to being
// refused. (The decoder itself still holds the token it returns; the body's
// own cap bounds that.)
const maxText = 4 * hints.MaxURLBytes

// text returns the character data directly inside the element just
// started, up to its end; nested elements are skipped. Beyond maxText
// bytes the text is dropped and long reports it.
func (r *xmlReader) text() (s string, long bool, err error) {
	depth := len(r.open)
	var buf []byte
	for {
		tok, err := r.next()
		if err != nil {
			return "", false, err
		}
		switch tok.kind {
		case tokText:
			if len(r.open) != depth {
				continue
			}
			if len(buf)+len(tok.text) > maxText {
				long = true
				buf = buf[:0]
			}
			if !long {
				buf = append(buf, tok.text...)
			}
		case tokEnd:
			if len(r.open) < depth {
				return string(buf), long, nil
			}
		}
	}
}

func (r *xmlReader) syntaxError(msg string) error {
	return &xml.SyntaxError{Msg: msg, Line: r.dec.Line()}
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}
