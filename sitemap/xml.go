package sitemap

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	"golang.org/x/net/html/charset"

	"tidings/hints"
)

// run streams the document's raw tokens (a 50,000-URL sitemap has a
// million of them) through hints.XMLTokens, encoding/xml's RawToken made
// fast for plain markup, checking end tags and resolving prefixes
// itself: elements are matched by namespace URI.
func (p *parser) run(r io.Reader) error {
	dec := hints.NewXMLTokens(r, maxField, charset.NewReaderLabel)
	rootSeen := false
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			switch {
			case !rootSeen:
				return fmt.Errorf("sitemap: %w", ErrNotSitemap)
			case len(p.open) > 0:
				return errors.New("sitemap: not well-formed XML: the document ends before its elements are closed")
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("sitemap: not well-formed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if rootSeen && p.depth == 0 {
				return errors.New("sitemap: not well-formed XML: more than one root element")
			}
			p.depth++
			if p.depth > maxDepth {
				return fmt.Errorf("sitemap: elements nested more than %d deep", maxDepth)
			}
			p.push(t)
			space := p.resolve(t.Name.Space)
			if p.depth == 1 {
				if !sitemapSpaces[space] || (t.Name.Local != "urlset" && t.Name.Local != "sitemapindex") {
					return fmt.Errorf("sitemap: %w", ErrNotSitemap)
				}
				rootSeen = true
				p.doc.Index = t.Name.Local == "sitemapindex"
			}
			p.start(space, t.Name.Local)
		case xml.EndElement:
			if len(p.open) == 0 || p.open[len(p.open)-1].name != t.Name {
				return fmt.Errorf("sitemap: not well-formed XML: unexpected end tag </%s>", t.Name.Local)
			}
			p.end()
			p.pop()
			p.depth--
		case xml.CharData:
			// A field's text may come in several pieces (CDATA, comments
			// between): past maxField it is too long, whatever was kept.
			switch {
			case p.field == "" || p.long:
			case p.text.Len()+len(t) > maxField:
				p.long = true
			default:
				p.text.Write(t)
			}
		}
	}
}

// openElem is an element being read, with the namespaces it declared.
type openElem struct {
	name  xml.Name // as written: Space is the prefix
	binds int      // len(p.binds) before its declarations
}

type binding struct{ prefix, uri string }

func (p *parser) push(t xml.StartElement) {
	p.open = append(p.open, openElem{name: t.Name, binds: len(p.binds)})
	for _, a := range t.Attr {
		switch {
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			p.binds = append(p.binds, binding{"", a.Value})
		case a.Name.Space == "xmlns":
			p.binds = append(p.binds, binding{a.Name.Local, a.Value})
		}
	}
}

func (p *parser) pop() {
	e := p.open[len(p.open)-1]
	p.open = p.open[:len(p.open)-1]
	p.binds = p.binds[:e.binds]
}

// resolve returns the namespace URI a prefix is bound to; an unbound
// prefix resolves to itself, which is no sitemap namespace.
func (p *parser) resolve(prefix string) string {
	for i := len(p.binds) - 1; i >= 0; i-- {
		if p.binds[i].prefix == prefix {
			return p.binds[i].uri
		}
	}
	return prefix
}
