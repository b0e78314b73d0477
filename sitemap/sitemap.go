// Package sitemap reads plain sitemaps (sitemaps.org 0.9): a <urlset> of
// pages with their <lastmod>, or a <sitemapindex> of child sitemaps. It
// parses bytes into typed values and does no I/O; what a sitemap may cost
// is capped (decompressed bytes, entries kept, URL length), and the
// entries outside the scope asked for are counted, not kept.
package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"tidings/hints"
	"tidings/urls"
)

// Limits of the sitemap protocol, which tidings keeps whatever a site
// serves.
const (
	// MaxURLs is the most pages one sitemap may list (sitemaps.org).
	MaxURLs = 50_000
	// MaxChildren is the most child sitemaps kept of one index. The
	// protocol allows 50,000; the harvester reads far fewer.
	MaxChildren = 1000
	// MaxBytes caps a sitemap after decompression (sitemaps.org: 50 MB).
	MaxBytes = 50 << 20
)

// ErrNotSitemap: the document is well-formed XML, or no XML at all, but
// its root is neither <urlset> nor <sitemapindex>.
var ErrNotSitemap = errors.New("not a sitemap: its root element is neither <urlset> nor <sitemapindex>")

// ErrTooLarge: the document is bigger than MaxBytes (or Options.MaxBytes)
// once decompressed.
var ErrTooLarge = errors.New("larger than the size a sitemap may have once decompressed")

// URL is one page a <urlset> lists.
type URL struct {
	Loc string
	// Lastmod is nil when the entry has none, or one that is not a W3C
	// datetime (counted in Skips.BadLastmod).
	Lastmod *time.Time
}

// Skips counts the entries a sitemap listed that were not kept.
type Skips struct {
	OtherHost  int // on another host than the scope's
	OutOfScope int // on the scope's host, outside its path
	Invalid    int // empty, not an absolute http(s) URL, or too long
	OverCap    int // past MaxURLs or MaxChildren
	Duplicate  int // listed twice
	BadLastmod int // kept without its lastmod
}

// Total counts the entries skipped, BadLastmod aside.
func (s Skips) Total() int { return s.OtherHost + s.OutOfScope + s.Invalid + s.OverCap + s.Duplicate }

// Document is a parsed sitemap.
type Document struct {
	// Index: the root was <sitemapindex>, and Children lists it.
	Index    bool
	URLs     []URL
	Children []string
	Skipped  Skips
}

// Options tune Parse.
type Options struct {
	// Scope, when set, is the URL prefix pages must start with (scheme
	// and a leading "www." aside): "https://example.org/shrine/". Child
	// sitemaps of an index are only held to its host.
	Scope string
	// MaxURLs, MaxChildren and MaxBytes lower the package limits; 0 takes
	// them.
	MaxURLs, MaxChildren int
	MaxBytes             int64
}

func (o Options) withDefaults() Options {
	if o.MaxURLs <= 0 || o.MaxURLs > MaxURLs {
		o.MaxURLs = MaxURLs
	}
	if o.MaxChildren <= 0 || o.MaxChildren > MaxChildren {
		o.MaxChildren = MaxChildren
	}
	if o.MaxBytes <= 0 || o.MaxBytes > MaxBytes {
		o.MaxBytes = MaxBytes
	}
	return o
}

// gzipMagic starts every gzip file: .xml.gz sitemaps are often served as
// application/octet-stream, with nothing else to tell them apart.
var gzipMagic = []byte{0x1f, 0x8b}

// Parse reads a sitemap or sitemap index from r, gzip-compressed or not.
func Parse(r io.Reader, o Options) (*Document, error) {
	o = o.withDefaults()
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("sitemap: a broken gzip file: %w", err)
		}
		defer zr.Close()
		r = zr
	} else {
		r = br
	}
	lr := &capReader{r: r, left: o.MaxBytes}
	p := newParser(o)
	if err := p.run(lr); err != nil {
		if lr.over {
			return nil, fmt.Errorf("sitemap: %w (%d MiB)", ErrTooLarge, o.MaxBytes>>20)
		}
		return nil, err
	}
	return p.doc, nil
}

// capReader fails once more than left bytes were read.
type capReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *capReader) Read(b []byte) (int, error) {
	if c.left <= 0 {
		c.over = true
		return 0, ErrTooLarge
	}
	if int64(len(b)) > c.left {
		b = b[:c.left]
	}
	n, err := c.r.Read(b)
	c.left -= int64(n)
	return n, err
}

// The namespaces a sitemap's own elements may be in: sitemaps.org, the
// Google namespaces that preceded it, and none. Extensions (image:loc,
// xhtml:link) are in others and are not read.
var sitemapSpaces = map[string]bool{
	"": true,
	"http://www.sitemaps.org/schemas/sitemap/0.9":  true,
	"https://www.sitemaps.org/schemas/sitemap/0.9": true,
	"http://www.google.com/schemas/sitemap/0.9":    true,
	"http://www.google.com/schemas/sitemap/0.84":   true,
}

type parser struct {
	o      Options
	scope  *url.URL
	host   string // the scope's, bare
	prefix string // the scope's path, escaped
	doc    *Document
	seen   map[string]bool

	depth   int
	open    []openElem
	binds   []binding
	field   string // "loc" or "lastmod" while inside one at depth 3
	text    strings.Builder
	long    bool // the field's text went past maxField
	loc     string
	lastmod string
}

func newParser(o Options) *parser {
	p := &parser{o: o, doc: &Document{}, seen: map[string]bool{}}
	if o.Scope != "" {
		if u, err := url.Parse(o.Scope); err == nil && u.Host != "" {
			p.scope, p.host, p.prefix = u, urls.BareHost(u.Host), u.EscapedPath()
		}
	}
	return p
}

// maxDepth bounds nesting: a sitemap needs three levels, extensions a few
// more.
const maxDepth = 32

// maxField bounds the text of one <loc> or <lastmod>; a longer one is
// invalid anyway, and is not held whole: the decoder reads the document
// through hints.ClipXML at this size, so it never holds more of it either.
const maxField = hints.MaxURLBytes * 4

// tooLong stands for a field's text past maxField: it is no URL and no
// date, so the entry is skipped as invalid, or kept without its lastmod.
const tooLong = string(hints.Clipped)

func (p *parser) start(space, local string) {
	switch {
	case p.depth == 2:
		p.loc, p.lastmod = "", ""
	case p.depth == 3 && sitemapSpaces[space] && (local == "loc" || local == "lastmod"):
		p.field = local
		p.text.Reset()
		p.long = false
	}
}

func (p *parser) end() {
	switch {
	case p.depth == 3 && p.field != "":
		v := strings.TrimSpace(p.text.String())
		if p.long {
			v = tooLong
		}
		if p.field == "loc" {
			p.loc = v
		} else {
			p.lastmod = v
		}
		p.field = ""
	case p.depth == 2:
		if p.doc.Index {
			p.child()
		} else {
			p.page()
		}
	}
}

func (p *parser) child() {
	u, ok := p.absolute(p.loc)
	switch {
	case !ok:
		p.doc.Skipped.Invalid++
	case p.seen[u.String()]:
		p.doc.Skipped.Duplicate++
	case p.scope != nil && urls.BareHost(u.Host) != p.host:
		p.doc.Skipped.OtherHost++
	case len(p.doc.Children) >= p.o.MaxChildren:
		p.doc.Skipped.OverCap++
	default:
		s := u.String()
		p.seen[s] = true
		p.doc.Children = append(p.doc.Children, s)
	}
}

func (p *parser) page() {
	u, ok := p.absolute(p.loc)
	if !ok {
		p.doc.Skipped.Invalid++
		return
	}
	s := u.String()
	switch {
	case p.seen[s]:
		p.doc.Skipped.Duplicate++
		return
	case p.scope != nil && urls.BareHost(u.Host) != p.host:
		p.doc.Skipped.OtherHost++
		return
	case p.scope != nil && !urls.UnderPath(u.EscapedPath(), p.prefix):
		p.doc.Skipped.OutOfScope++
		return
	case len(p.doc.URLs) >= p.o.MaxURLs:
		p.doc.Skipped.OverCap++
		return
	}
	p.seen[s] = true
	e := URL{Loc: s}
	if p.lastmod != "" {
		if t, err := hints.ParseW3CDatetime(p.lastmod); err == nil {
			e.Lastmod = &t
		} else {
			p.doc.Skipped.BadLastmod++
		}
	}
	p.doc.URLs = append(p.doc.URLs, e)
}

// absolute checks a <loc>: an absolute http(s) URL of at most
// hints.MaxURLBytes. A "#" is taken as part of the path, escaped: sitemap
// generators write file names as they are, and a sitemap entry naming a
// fragment would be meaningless.
func (p *parser) absolute(loc string) (*url.URL, bool) {
	if loc == "" || len(loc) > hints.MaxURLBytes {
		return nil, false
	}
	if strings.IndexByte(loc, '#') >= 0 {
		loc = strings.ReplaceAll(loc, "#", "%23")
	}
	u, err := url.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, false
	}
	if len(loc) > hints.MaxURLBytes/2 && len(u.String()) > hints.MaxURLBytes {
		return nil, false
	}
	return u, true
}
