package scpbridge

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"tidings/hints"

	"golang.org/x/net/html/charset"
)

// Sitemap is what a sitemap.xml says for SCP: the scp: elements of a
// <urlset>, or the child sitemaps of a <sitemapindex> (which may hold scp:
// elements too).
type Sitemap struct {
	URL         string
	Root        string   // "urlset" or "sitemapindex"
	Sitemaps    []string // the <sitemap><loc> of an index, absolute
	Version     string   // scp:version
	Compression []string // scp:compression, in the site's order
	Sections    []Section
	Files       []File // scp:collection and scp:delta, in document order
	Warnings    []string
}

// HasSCP reports whether the sitemap uses the SCP extension at all.
func (s *Sitemap) HasSCP() bool {
	return s.Version != "" || len(s.Compression) > 0 || len(s.Sections) > 0 || len(s.Files) > 0
}

// Section is an scp:section.
type Section struct {
	Name       string
	UpdateFreq string
	Pages      string // as written, "~5000" included
}

// File is an scp:collection (a snapshot) or an scp:delta.
type File struct {
	Section   string
	Type      string // TypeSnapshot or TypeDelta
	Period    string // deltas: an opaque label
	URL       string // absolute
	Generated time.Time
	Expires   *time.Time
	Since     *time.Time
	Pages     int64 // -1 when not given
	Size      int64 // compressed bytes as declared; -1 when not given
}

// Caps on what one sitemap may declare.
const (
	maxFiles    = 10_000
	maxSitemaps = 50_000 // the sitemap protocol's own limit
)

// ErrNotSitemap: the document is not XML with a <urlset> or <sitemapindex>
// root.
var ErrNotSitemap = errors.New("scpbridge: not a sitemap")

// ParseSitemap reads a sitemap as a stream; scp: elements are recognised
// by their namespace URI, whatever the prefix.
func ParseSitemap(r io.Reader, sitemapURL string) (*Sitemap, error) {
	br := bufio.NewReader(r)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	// A value past any this parser keeps (a 45 MB <loc>) is cut as it
	// streams, so that the decoder never holds it whole.
	dec := xml.NewDecoder(hints.ClipXML(br, 4*hints.MaxURLBytes))
	dec.CharsetReader = charset.NewReaderLabel
	sm := &Sitemap{URL: sitemapURL}
	p := &smParser{sm: sm, dec: dec, seenSection: map[string]bool{}}
	if u, err := url.Parse(sitemapURL); err == nil {
		p.base = u
	}
	if err := p.run(); err != nil {
		return nil, err
	}
	return sm, nil
}

type smParser struct {
	sm          *Sitemap
	dec         *xml.Decoder
	base        *url.URL
	seenSection map[string]bool
	stack       []string
	loc         bool // inside <sitemap><loc> of an index
}

func (p *smParser) run() error {
	for {
		tok, err := p.dec.Token()
		if err == io.EOF {
			if p.sm.Root == "" {
				return fmt.Errorf("%w: no root element", ErrNotSitemap)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrNotSitemap, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := p.start(t); err != nil {
				return err
			}
		case xml.EndElement:
			p.stack = p.stack[:len(p.stack)-1]
			p.loc = false
		case xml.CharData:
			if p.loc {
				p.indexLoc(string(t))
			}
		}
	}
}

func (p *smParser) start(t xml.StartElement) error {
	if len(p.stack) == 0 {
		if t.Name.Local != "urlset" && t.Name.Local != "sitemapindex" {
			return fmt.Errorf("%w: the root element is <%s>", ErrNotSitemap, t.Name.Local)
		}
		p.sm.Root = t.Name.Local
	}
	p.stack = append(p.stack, t.Name.Local)
	if t.Name.Space == Namespace {
		return p.scp(t)
	}
	n := len(p.stack)
	p.loc = p.sm.Root == "sitemapindex" && n == 3 && p.stack[1] == "sitemap" && t.Name.Local == "loc"
	return nil
}

func (p *smParser) indexLoc(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if len(p.sm.Sitemaps) >= maxSitemaps {
		p.warnf("the sitemap index lists more than %d sitemaps; the rest are ignored", maxSitemaps)
		return
	}
	if u := p.resolve(s); u != "" {
		p.sm.Sitemaps = append(p.sm.Sitemaps, u)
	}
	p.loc = false
}

// scp reads one scp: element (consuming it whole).
func (p *smParser) scp(t xml.StartElement) error {
	var text string
	switch t.Name.Local {
	case "version", "compression":
		if err := p.dec.DecodeElement(&text, &t); err != nil {
			return fmt.Errorf("%w: %v", ErrNotSitemap, err)
		}
		p.stack = p.stack[:len(p.stack)-1]
		text = strings.TrimSpace(text)
		if t.Name.Local == "version" {
			p.sm.Version = text
			return nil
		}
		for _, c := range strings.Split(text, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
				p.sm.Compression = append(p.sm.Compression, c)
			}
		}
	case "section":
		p.section(t)
	case "collection", "delta":
		p.file(t)
	}
	return nil
}

func (p *smParser) section(t xml.StartElement) {
	s := Section{Name: strings.TrimSpace(attr(t, "name")), UpdateFreq: attr(t, "updateFreq"), Pages: attr(t, "pages")}
	if s.Name == "" {
		p.warnf("an scp:section has no name; ignored")
		return
	}
	if p.seenSection[s.Name] {
		return
	}
	p.seenSection[s.Name] = true
	p.sm.Sections = append(p.sm.Sections, s)
}

func (p *smParser) file(t xml.StartElement) {
	el := "scp:" + t.Name.Local
	f := File{Section: strings.TrimSpace(attr(t, "section")), Period: attr(t, "period"), Pages: -1, Size: -1}
	f.Type = TypeSnapshot
	if t.Name.Local == "delta" {
		f.Type = TypeDelta
	}
	if ty := attr(t, "type"); ty != "" && ty != f.Type {
		if ty != TypeSnapshot && ty != TypeDelta {
			p.warnf("an %s has the unknown type %q; ignored", el, ty)
			return
		}
		f.Type = ty
	}
	raw := strings.TrimSpace(attr(t, "url"))
	if f.URL = p.resolve(raw); f.URL == "" {
		p.warnf("an %s has no usable url (%q); ignored", el, raw)
		return
	}
	if f.Section == "" {
		p.warnf("%s %s names no section; ignored", el, f.URL)
		return
	}
	gen, err := hints.ParseW3CDatetime(attr(t, "generated"))
	if err != nil {
		p.warnf("%s %s has no valid generated time; ignored", el, f.URL)
		return
	}
	f.Generated = gen
	f.Expires = p.optTime(el, f.URL, t, "expires")
	f.Since = p.optTime(el, f.URL, t, "since")
	f.Pages = p.optInt(el, f.URL, t, "pages")
	f.Size = p.optInt(el, f.URL, t, "size")
	if len(p.sm.Files) >= maxFiles {
		p.warnf("the sitemap lists more than %d SCP collections; the rest are ignored", maxFiles)
		return
	}
	p.sm.Files = append(p.sm.Files, f)
}

func (p *smParser) optTime(el, u string, t xml.StartElement, name string) *time.Time {
	v := attr(t, name)
	if v == "" {
		return nil
	}
	tm, err := hints.ParseW3CDatetime(v)
	if err != nil {
		p.warnf("%s %s: %s=%q is not a date-time; ignored", el, u, name, v)
		return nil
	}
	return &tm
}

func (p *smParser) optInt(el, u string, t xml.StartElement, name string) int64 {
	v := strings.TrimSpace(attr(t, name))
	if v == "" {
		return -1
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		p.warnf("%s %s: %s=%q is not a count; ignored", el, u, name, v)
		return -1
	}
	return n
}

// resolve makes a URL absolute against the sitemap's; only http and https
// are kept.
func (p *smParser) resolve(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || s == "" {
		return ""
	}
	if p.base != nil {
		u = p.base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return ""
	}
	u.Fragment = ""
	return u.String()
}

func (p *smParser) warnf(format string, args ...any) {
	if len(p.sm.Warnings) < maxKeptWarnings {
		p.sm.Warnings = append(p.sm.Warnings, fmt.Sprintf(format, args...))
	}
}

// attr returns an attribute by local name, unprefixed or in the SCP
// namespace.
func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name && (a.Name.Space == "" || a.Name.Space == Namespace) {
			return a.Value
		}
	}
	return ""
}
