package hints

import (
	"bytes"
	"errors"
	"io"
)

// Clipped is the character ClipXML writes where it dropped the rest of a
// value: U+007F DELETE, which no URL, date or number may hold, so that a
// parser refuses the value rather than take its first bytes for all of it.
const Clipped = '\x7f'

// MaxMarkup is the longest tag (its attribute values included, each
// clipped), processing instruction or declaration ClipXML lets through: a
// sitemap's root with its namespaces is a few hundred bytes.
const MaxMarkup = 1 << 20

// ErrMarkupTooLong is what a ClipXML reader returns past MaxMarkup bytes of
// one tag, processing instruction or declaration.
var ErrMarkupTooLong = errors.New("an XML tag or declaration is longer than 1 MiB")

// ClipXML returns a reader of the XML document r in which every value
// longer than limit bytes (a run of character data, a CDATA section, an
// attribute value, a comment) is cut as it streams by: its first limit
// bytes (and the rest of a character or entity reference begun in them),
// then Clipped, then what closes the value. encoding/xml holds a whole
// token before returning it, so that a 45 MB <loc> costs its decoder three
// times that however little of it the parser keeps; behind ClipXML it
// holds limit bytes. A parser caps its values (a URL, a date) below limit,
// so the values it keeps are the document's, and a document read whole is
// read as it is.
func ClipXML(r io.Reader, limit int) io.Reader {
	return &xmlClipper{r: r, max: max(limit, 1), in: make([]byte, 32<<10)}
}

// Where in the document the next byte is.
const (
	inText      = iota // character data
	inLT               // after '<'
	inBang             // after "<!"
	inBangDash         // after "<!-"
	inCDATAOpen        // in "<![CDATA[", k bytes of "[CDATA[" seen
	inCDATA            // a CDATA section
	inComment          // a comment
	inAttr             // an attribute value quoted with quote
	inTag              // a start or end tag, outside attribute values
	inPI               // a processing instruction, <?xml …?> included
	inDirective        // <!DOCTYPE …>, read as encoding/xml reads it
)

// maxEntity is how far past limit a reference begun before it may run to
// be let through whole: the longest a document needs is a padded numeric
// one.
const maxEntity = 32

type xmlClipper struct {
	r       io.Reader
	max     int
	in      []byte // read from r
	i, end  int    // in[i:end] is not yet processed
	err     error  // r's, returned once the input is used up
	pending []byte // output that did not fit the caller's buffer

	state    int
	n        int    // bytes of the current value, or of the current markup
	tag      int    // bytes of the current tag, its attribute values included
	clipping bool   // the rest of the current value is dropped
	hold     []byte // a reference begun in a value, kept back until its ';'
	last     [2]byte
	quote    byte // the current attribute value's quote
	k        int  // inCDATAOpen: bytes of "[CDATA[" matched; inDirective: of "!--" after '<'
	// A directive's nesting, as encoding/xml counts it.
	dirQuote   byte
	dirDepth   int
	dirComment bool
}

func (c *xmlClipper) Read(p []byte) (int, error) {
	out := outBuf{p: p}
	if len(c.pending) > 0 {
		c.pending = c.pending[out.write(c.pending):]
		if len(c.pending) > 0 {
			return out.n, nil
		}
	}
	for out.n < len(p) {
		if c.i < c.end {
			if err := c.step(&out); err != nil {
				c.err, c.i, c.end, c.hold = err, 0, 0, nil
				break
			}
			continue
		}
		if c.err != nil {
			// A document cut short ends as it was sent.
			out.bytes(c.hold)
			c.hold = nil
			break
		}
		if out.n > 0 {
			break
		}
		c.end, c.err = c.r.Read(c.in)
		c.i = 0
	}
	c.pending = append(c.pending, out.over...)
	if out.n == 0 && len(c.pending) == 0 {
		return 0, c.err
	}
	return out.n, nil
}

// outBuf is the caller's buffer; what does not fit goes to over.
type outBuf struct {
	p    []byte
	n    int
	over []byte
}

func (o *outBuf) write(b []byte) int {
	k := copy(o.p[o.n:], b)
	o.n += k
	return k
}

func (o *outBuf) byte(b byte) {
	if o.n < len(o.p) {
		o.p[o.n] = b
		o.n++
		return
	}
	o.over = append(o.over, b)
}

func (o *outBuf) bytes(b []byte) {
	o.over = append(o.over, b[o.write(b):]...)
}

// step processes some of the input: a run of character data or of an
// attribute value at once, else one byte.
func (c *xmlClipper) step(out *outBuf) error {
	if (c.state == inText || c.state == inAttr) && c.run(out) {
		return nil
	}
	b := c.in[c.i]
	c.i++
	switch c.state {
	case inText, inAttr, inCDATA, inComment:
		c.value(out, b)
		return nil
	case inLT:
		switch b {
		case '!':
			c.state = inBang
		case '?':
			c.state, c.n, c.last = inPI, 0, [2]byte{}
		default:
			// A start or end tag, of which b is the first byte.
			c.state, c.tag = inTag, 0
			c.i--
			return nil
		}
	case inBang:
		switch b {
		case '-':
			c.state = inBangDash
		case '[':
			c.state, c.k = inCDATAOpen, 1
		default:
			// The directive's name: encoding/xml does not look at its
			// first byte for quotes or an end.
			c.state, c.n, c.dirQuote, c.dirDepth, c.dirComment, c.k = inDirective, 1, 0, 0, false, 0
		}
	case inBangDash:
		c.enter(inText)
		if b == '-' {
			c.enter(inComment)
		}
	case inCDATAOpen:
		switch {
		case b != "[CDATA["[c.k]:
			c.enter(inText)
		case c.k == len("[CDATA[")-1:
			c.enter(inCDATA)
		default:
			c.k++
		}
	case inTag:
		// Attribute values count too: a tag of a million short
		// attributes costs the decoder a million of them at once.
		if c.tag++; c.tag > MaxMarkup {
			return ErrMarkupTooLong
		}
		switch b {
		case '>':
			c.enter(inText)
		case '"', '\'':
			c.enter(inAttr)
			c.quote = b
		}
	case inPI:
		if c.n++; c.n > MaxMarkup {
			return ErrMarkupTooLong
		}
		if b == '>' && c.last[1] == '?' {
			c.enter(inText)
		}
		c.last = [2]byte{c.last[1], b}
	case inDirective:
		if c.n++; c.n > MaxMarkup {
			return ErrMarkupTooLong
		}
		c.directive(b)
	}
	out.byte(b)
	return nil
}

// enter starts a value (or the text after markup) in state s.
func (c *xmlClipper) enter(s int) {
	c.state, c.n, c.clipping, c.last = s, 0, false, [2]byte{}
}

// run passes or drops, at once, the bytes of character data or of an
// attribute value up to the byte that ends it, or up to limit, or up to a
// reference. It reports whether it did.
func (c *xmlClipper) run(out *outBuf) bool {
	if len(c.hold) > 0 {
		return false
	}
	stop := byte('<')
	if c.state == inAttr {
		stop = c.quote
	}
	rest := c.in[c.i:c.end]
	if j := bytes.IndexByte(rest, stop); j >= 0 {
		rest = rest[:j]
	}
	if c.clipping {
		c.i += len(rest)
		return len(rest) > 0
	}
	if c.n >= c.max {
		return false
	}
	if j := bytes.IndexByte(rest, '&'); j >= 0 {
		rest = rest[:j]
	}
	if room := c.max - c.n; len(rest) > room {
		rest = rest[:room]
	}
	k := out.write(rest)
	c.i += k
	c.n += k
	c.tag += k
	return k > 0
}

// value handles byte b of a value: its end, a byte passed or held back, or
// a byte dropped.
func (c *xmlClipper) value(out *outBuf, b byte) {
	last := c.last
	c.last = [2]byte{last[1], b}
	if end, closer := c.ends(b, last); end {
		if c.clipping {
			out.bytes([]byte(closer))
		} else {
			out.bytes(c.hold)
			out.byte(b)
		}
		c.hold = c.hold[:0]
		switch c.state {
		case inText:
			c.state = inLT
		case inAttr:
			c.state = inTag
			c.tag++
		default:
			c.enter(inText)
		}
		return
	}
	switch {
	case c.clipping:
	case len(c.hold) > 0:
		// A reference begun before limit is let through whole, or not
		// at all: cut, it would not be well-formed.
		c.hold = append(c.hold, b)
		switch {
		case b == ';':
			out.bytes(c.hold)
			c.n += len(c.hold)
			c.tag += len(c.hold)
			c.hold = c.hold[:0]
		case c.n+len(c.hold) > c.max+maxEntity:
			c.hold = c.hold[:0]
			c.clip(out)
		}
	case c.n >= c.max && !(b&0xC0 == 0x80 && c.n < c.max+3):
		// Past limit, but for the rest of a UTF-8 sequence begun before.
		c.clip(out)
	case b == '&' && (c.state == inText || c.state == inAttr):
		c.hold = append(c.hold, b)
	default:
		out.byte(b)
		c.n++
		c.tag++
	}
}

func (c *xmlClipper) clip(out *outBuf) {
	c.clipping = true
	out.byte(Clipped)
}

// ends reports whether b, after the bytes last, ends the current value,
// and what closes it when its end was dropped.
func (c *xmlClipper) ends(b byte, last [2]byte) (bool, string) {
	switch c.state {
	case inText:
		return b == '<', "<"
	case inAttr:
		return b == c.quote, string(c.quote)
	case inCDATA:
		return b == '>' && last == [2]byte{']', ']'}, "]]>"
	case inComment:
		return b == '>' && last == [2]byte{'-', '-'}, "-->"
	}
	return false, ""
}

// directive follows a <!DOCTYPE …> as encoding/xml does: quoted angle
// brackets do not nest, and comments inside are skipped.
func (c *xmlClipper) directive(b byte) {
	switch {
	case c.dirComment:
		if b == '>' && c.last == [2]byte{'-', '-'} {
			c.dirComment = false
		}
		c.last = [2]byte{c.last[1], b}
		return
	case c.k > 0:
		if b == "!--"[c.k-1] {
			if c.k++; c.k > 3 {
				c.k, c.dirComment, c.last = 0, true, [2]byte{}
			}
			return
		}
		c.k = 0
		c.dirDepth++
	case c.dirQuote == 0 && b == '>' && c.dirDepth == 0:
		c.enter(inText)
		return
	}
	switch {
	case b == c.dirQuote:
		c.dirQuote = 0
	case c.dirQuote != 0:
	case b == '"' || b == '\'':
		c.dirQuote = b
	case b == '>':
		c.dirDepth--
	case b == '<':
		c.k = 1
	}
}
