package rsync

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/beevik/etree"
)

// parser turns an etree root into a Document, collecting warnings as it
// goes.
type parser struct {
	doc  *Document
	base *url.URL
}

func (p *parser) warnf(format string, args ...any) {
	p.doc.Warnings = append(p.doc.Warnings, fmt.Sprintf(format, args...))
}

// parseRoot reads the root's rs:md and rs:ln and every entry.
func (p *parser) parseRoot(root *etree.Element) {
	entryTag, otherTag := "url", "sitemap"
	if p.doc.Root == RootSitemapIndex {
		entryTag, otherTag = "sitemap", "url"
	}
	md := map[string]string{}
	n := 0
	for _, el := range root.ChildElements() {
		switch {
		case isRSElem(el, "md"):
			mergeMD(md, el)
		case isRSElem(el, "ln"):
			if l, ok := p.link(el, "root"); ok {
				p.doc.Links = append(p.doc.Links, l)
			}
		case isSitemapElem(el, entryTag):
			n++
			if e, ok := p.entry(el, n); ok {
				p.doc.Entries = append(p.doc.Entries, e)
			}
		case isSitemapElem(el, otherTag):
			p.warnf("<%s> inside <%s> ignored", otherTag, p.doc.Root)
		}
	}
	p.doc.Capability = md["capability"]
	p.doc.At = p.rootDate(md, "at")
	p.doc.Completed = p.rootDate(md, "completed")
	p.doc.From = p.rootDate(md, "from")
	p.doc.Until = p.rootDate(md, "until")
}

// rootDate parses one date attribute of the root rs:md. A bad value only
// costs that field: the document's entries are still usable.
func (p *parser) rootDate(md map[string]string, name string) *time.Time {
	v, ok := md[name]
	if !ok {
		return nil
	}
	t, err := parseW3C(v)
	if err != nil {
		p.warnf("root rs:md: %s %q is not a W3C datetime", name, v)
		return nil
	}
	return &t
}

// entry reads one <url> or <sitemap>; n is its 1-based position, so that
// warnings point at it even when its <loc> is missing.
func (p *parser) entry(el *etree.Element, n int) (Entry, bool) {
	var e Entry
	var loc, lastmod string
	var hasLoc, hasLastmod bool
	md := map[string]string{}
	var links []*etree.Element
	for _, c := range el.ChildElements() {
		switch {
		case isSitemapElem(c, "loc") && !hasLoc:
			loc, hasLoc = strings.TrimSpace(c.Text()), true
		case isSitemapElem(c, "lastmod") && !hasLastmod:
			lastmod, hasLastmod = strings.TrimSpace(c.Text()), true
		case isRSElem(c, "md"):
			mergeMD(md, c)
		case isRSElem(c, "ln"):
			links = append(links, c)
		}
	}
	where := fmt.Sprintf("entry %d", n)
	if loc == "" {
		p.warnf("%s: no <loc>, skipped", where)
		return e, false
	}
	abs, ok := p.resolve(loc)
	if !ok {
		p.warnf("%s: <loc> %q is not a URL, skipped", where, loc)
		return e, false
	}
	e.Loc = abs
	where = fmt.Sprintf("entry %d <%s>", n, abs)
	for _, c := range links {
		if l, ok := p.link(c, where); ok {
			e.Links = append(e.Links, l)
		}
	}
	if lastmod != "" {
		md["lastmod"] = lastmod
	}
	p.entryMD(&e, md, where)
	return e, true
}

// entryMD copies an entry's merged rs:md (and lastmod) into e.
func (p *parser) entryMD(e *Entry, md map[string]string, where string) {
	e.Capability = md["capability"]
	e.Change = md["change"]
	e.Hash = md["hash"]
	e.Type = md["type"]
	if v, ok := md["length"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			p.warnf("%s: length %q is not a byte count", where, v)
		} else {
			e.Length = n
		}
	}
	e.Lastmod = p.entryDate(e, md, "lastmod", where)
	e.Datetime = p.entryDate(e, md, "datetime", where)
	e.From = p.entryDate(e, md, "from", where)
	e.Until = p.entryDate(e, md, "until", where)
}

// entryDate parses one date of an entry. A bad value is recorded in
// BadDate, so that harvest can skip the entry rather than misdate it.
func (p *parser) entryDate(e *Entry, md map[string]string, name, where string) *time.Time {
	v, ok := md[name]
	if !ok {
		return nil
	}
	t, err := parseW3C(v)
	if err != nil {
		bad := fmt.Sprintf("%s %q", name, v)
		if e.BadDate == "" {
			e.BadDate = bad
		}
		p.warnf("%s: %s is not a W3C datetime", where, bad)
		return nil
	}
	return &t
}

// link reads an rs:ln. One without a usable href is dropped with a warning.
func (p *parser) link(el *etree.Element, where string) (Link, bool) {
	// Relation types are case-insensitive (RFC 8288), so lookups can use
	// the lowercase form.
	l := Link{
		Rel:  strings.ToLower(attr(el, "rel")),
		Type: attr(el, "type"),
	}
	href := attr(el, "href")
	if href == "" {
		p.warnf("%s: rs:ln rel=%q has no href, skipped", where, l.Rel)
		return l, false
	}
	abs, ok := p.resolve(href)
	if !ok {
		p.warnf("%s: rs:ln rel=%q href %q is not a URL, skipped", where, l.Rel, href)
		return l, false
	}
	l.Href = abs
	return l, true
}

// resolve trims ref and resolves it against the document URL.
func (p *parser) resolve(ref string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return "", false
	}
	if p.base != nil {
		u = p.base.ResolveReference(u)
	}
	return u.String(), true
}

// mergeMD adds the attributes of an rs:md to md. Some publishers split the
// metadata over several rs:md elements; the first non-empty value of each
// attribute wins.
func mergeMD(md map[string]string, el *etree.Element) {
	for _, a := range el.Attr {
		if !isPlainAttr(a) {
			continue
		}
		v := strings.TrimSpace(a.Value)
		if v == "" {
			continue
		}
		if _, seen := md[a.Key]; !seen {
			md[a.Key] = v
		}
	}
}

// attr returns the trimmed value of el's attribute key.
func attr(el *etree.Element, key string) string {
	for _, a := range el.Attr {
		if a.Key == key && isPlainAttr(a) {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

// isPlainAttr reports whether a is an rs:md or rs:ln attribute: those are
// unprefixed, though an rs-prefixed copy is tolerated.
func isPlainAttr(a etree.Attr) bool {
	if a.Space == "" {
		return a.Key != "xmlns"
	}
	return a.Space != "xmlns" && isRSNS(a.NamespaceURI())
}
