package rsync

import (
	"encoding/xml"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"tidings/hints"
)

// parser reads a Document from the token stream, collecting warnings as it
// goes.
type parser struct {
	doc  *Document
	base *url.URL
	r    *xmlReader
	// longURLs counts the entries skipped for a URL longer than
	// hints.MaxURLBytes: one warning says how many, not one per entry.
	longURLs int
	// dropped counts the warnings beyond maxWarnings.
	dropped int
	// each, when set, takes the entries of a <urlset> instead of
	// Document.Entries.
	each func(*Entry)
	// notes and describes gather the entries' findings until the
	// document's capability says which apply.
	notes, describes entryNotes
}

// maxWarnings bounds the warnings one document keeps: a list of 500,000
// entries with bad dates must not hold 500,000 sentences.
const maxWarnings = 100

func (p *parser) warnf(format string, args ...any) {
	if len(p.doc.Warnings) >= maxWarnings {
		p.dropped++
		return
	}
	p.doc.Warnings = append(p.doc.Warnings, fmt.Sprintf(format, args...))
}

// warnCode is warnf for a warning about what a finding of code counts,
// so that whoever shows the finding need not repeat the warning.
func (p *parser) warnCode(code, format string, args ...any) {
	n := len(p.doc.Warnings)
	p.warnf(format, args...)
	if len(p.doc.Warnings) > n {
		if p.doc.WarningCodes == nil {
			p.doc.WarningCodes = map[int]string{}
		}
		p.doc.WarningCodes[n] = code
	}
}

// finish adds the warnings that sum up the whole document.
func (p *parser) finish() {
	if p.longURLs > 0 {
		p.doc.Warnings = append(p.doc.Warnings, fmt.Sprintf("skipped %d %s whose URL is longer than %d bytes",
			p.longURLs, plural(p.longURLs, "entry", "entries"), hints.MaxURLBytes))
	}
	if p.dropped > 0 {
		p.doc.Warnings = append(p.doc.Warnings, fmt.Sprintf("… and %d more warnings", p.dropped))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// clip shortens a value quoted in a warning: the warning names it, it need
// not carry all of it.
func clip(v string) string {
	const max = 80
	if len(v) <= max {
		return v
	}
	return strings.ToValidUTF8(v[:max], "") + "…"
}

// parseRoot reads the root's rs:md and rs:ln and every entry, up to the
// root's end tag.
func (p *parser) parseRoot() error {
	entryTag, otherTag := "url", "sitemap"
	if p.doc.Root == RootSitemapIndex {
		entryTag, otherTag = "sitemap", "url"
	}
	var md mdAttrs
	n := 0
	for {
		tok, err := p.r.next()
		if err != nil {
			return err
		}
		switch tok.kind {
		case tokEnd:
			p.rootMD(&md)
			p.findings(&md)
			p.finish()
			return nil
		case tokStart:
		default:
			continue
		}
		el := tok.el
		switch {
		case isRSElem(el, "md"):
			md.merge(el)
		case isRSElem(el, "ln"):
			if l, ok := p.link(el, "root"); ok {
				p.doc.Links = append(p.doc.Links, l)
			}
		case isSitemapElem(el, entryTag):
			n++
			line := p.r.dec.Line()
			e, ok, err := p.entry(n)
			if err != nil {
				return err
			}
			if ok {
				p.noteEntry(&e, n, line)
			}
			switch {
			case !ok:
			case p.each != nil && p.doc.Root == RootURLSet:
				p.each(&e)
			default:
				p.doc.Entries = append(p.doc.Entries, e)
			}
			continue
		case isSitemapElem(el, otherTag):
			p.warnf("<%s> inside <%s> ignored", otherTag, p.doc.Root)
		}
		if err := p.r.skip(); err != nil {
			return err
		}
	}
}

// rootMD copies the root's merged rs:md into the document.
func (p *parser) rootMD(md *mdAttrs) {
	p.doc.Capability = md.capability
	p.doc.At = p.rootDate("at", md.at)
	p.doc.Completed = p.rootDate("completed", md.completed)
	p.doc.From = p.rootDate("from", md.from)
	p.doc.Until = p.rootDate("until", md.until)
}

// rootDate parses one date attribute of the root rs:md. A bad value only
// costs that field: the document's entries are still usable.
func (p *parser) rootDate(name, v string) *time.Time {
	if v == "" {
		return nil
	}
	t, err := hints.ParseW3CDatetime(v)
	if err != nil {
		p.warnf("root rs:md: %s %q is not a W3C datetime", name, clip(v))
		return nil
	}
	return &t
}

// entryChildren is what an entry's child elements say, before its <loc> is
// known to be usable.
type entryChildren struct {
	loc, lastmod       string
	hasLoc, hasLastmod bool
	longLoc            bool // longer than maxText: too long to be kept
	md                 mdAttrs
	links              []*elem
}

// entry reads one <url> or <sitemap> up to its end tag; n is its 1-based
// position, so that warnings point at it even when its <loc> is missing.
func (p *parser) entry(n int) (Entry, bool, error) {
	var c entryChildren
	if err := p.entryChildren(&c); err != nil {
		return Entry{}, false, err
	}
	var e Entry
	if c.longLoc || len(c.loc) > hints.MaxURLBytes {
		p.longURLs++
		return e, false, nil
	}
	if c.loc == "" {
		p.warnf("entry %d: no <loc>, skipped", n)
		return e, false, nil
	}
	abs, ok := p.resolve(c.loc)
	if !ok {
		p.warnf("entry %d: <loc> %q is not a URL, skipped", n, clip(c.loc))
		return e, false, nil
	}
	if len(abs) > hints.MaxURLBytes {
		// Resolved against the document's URL, it grew too long.
		p.longURLs++
		return e, false, nil
	}
	e.Loc = abs
	for _, el := range c.links {
		if l, ok := p.link(el, entryWhere{n, abs}); ok {
			e.Links = append(e.Links, l)
		}
	}
	if c.lastmod != "" {
		c.md.lastmod = c.lastmod
	}
	p.entryMD(&e, &c.md, entryWhere{n, abs})
	return e, true, nil
}

// entryChildren reads the child elements of the entry just started.
func (p *parser) entryChildren(c *entryChildren) error {
	for {
		tok, err := p.r.next()
		if err != nil {
			return err
		}
		switch tok.kind {
		case tokEnd:
			return nil
		case tokStart:
		default:
			continue
		}
		el := tok.el
		switch {
		case isSitemapElem(el, "loc") && !c.hasLoc:
			c.hasLoc = true
			c.loc, c.longLoc, err = p.r.text()
			c.loc = strings.TrimSpace(c.loc)
			if err != nil {
				return err
			}
			continue
		case isSitemapElem(el, "lastmod") && !c.hasLastmod:
			c.hasLastmod = true
			// A lastmod too long to keep is no date; what is kept of it
			// makes the warning.
			c.lastmod, _, err = p.r.text()
			c.lastmod = strings.TrimSpace(c.lastmod)
			if err != nil {
				return err
			}
			continue
		case isRSElem(el, "md"):
			c.md.merge(el)
		case isRSElem(el, "ln"):
			ln := *el // el is reused by the next token
			c.links = append(c.links, &ln)
		}
		if err := p.r.skip(); err != nil {
			return err
		}
	}
}

// entryWhere names an entry in warnings; it is formatted only when a
// warning is actually written.
type entryWhere struct {
	n   int
	loc string
}

func (w entryWhere) String() string { return fmt.Sprintf("entry %d <%s>", w.n, w.loc) }

// entryMD copies an entry's merged rs:md (and lastmod) into e.
func (p *parser) entryMD(e *Entry, md *mdAttrs, where fmt.Stringer) {
	e.Capability = md.capability
	e.Change = md.change
	e.Hash = md.hash
	e.Type = md.typ
	e.Note = md.note
	if v := md.length; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			p.warnf("%s: length %q is not a byte count", where, clip(v))
		} else {
			e.Length = n
		}
	}
	e.Lastmod = p.entryDate(e, "lastmod", md.lastmod, where)
	e.Datetime = p.entryDate(e, "datetime", md.datetime, where)
	e.From = p.entryDate(e, "from", md.from, where)
	e.Until = p.entryDate(e, "until", md.until, where)
}

// entryDate parses one date of an entry. A bad value is recorded in
// BadDates, so that harvest can skip an entry whose needed date is bad
// rather than misdate it.
func (p *parser) entryDate(e *Entry, name, v string, where fmt.Stringer) *time.Time {
	if v == "" {
		return nil
	}
	t, err := hints.ParseW3CDatetime(v)
	if err != nil {
		e.BadDates = append(e.BadDates, name)
		if name == "datetime" {
			p.warnCode(FindBadDatetime, "%s: %s %q is not a W3C datetime", where, name, clip(v))
		} else {
			p.warnf("%s: %s %q is not a W3C datetime", where, name, clip(v))
		}
		return nil
	}
	return &t
}

// link reads an rs:ln. One without a usable href is dropped with a warning.
func (p *parser) link(el *elem, where any) (Link, bool) {
	// Relation types are case-insensitive (RFC 8288), so lookups can use
	// the lowercase form.
	l := Link{
		Rel:  strings.ToLower(p.attr(el, "rel")),
		Type: p.attr(el, "type"),
	}
	href := p.attr(el, "href")
	if href == "" {
		p.warnf("%v: rs:ln rel=%q has no href, skipped", where, clip(l.Rel))
		return l, false
	}
	if len(href) > hints.MaxURLBytes {
		p.warnf("%v: rs:ln rel=%q href is longer than %d bytes, skipped", where, clip(l.Rel), hints.MaxURLBytes)
		return l, false
	}
	abs, ok := p.resolve(href)
	if !ok {
		p.warnf("%v: rs:ln rel=%q href %q is not a URL, skipped", where, clip(l.Rel), clip(href))
		return l, false
	}
	if len(abs) > hints.MaxURLBytes {
		p.warnf("%v: rs:ln rel=%q href is longer than %d bytes, skipped", where, clip(l.Rel), hints.MaxURLBytes)
		return l, false
	}
	l.Href = abs
	return l, true
}

// resolve trims ref and resolves it against the document URL.
func (p *parser) resolve(ref string) (string, bool) {
	ref = strings.TrimSpace(ref)
	if plainAbsURL(ref) {
		return ref, true
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	if p.base != nil {
		u = p.base.ResolveReference(u)
	}
	return u.String(), true
}

// plainAbsURL reports whether ref is an absolute http(s) URL so plain that
// parsing and resolving it would give it back unchanged: a host of letters,
// digits, dots and hyphens with an optional port, and a path of unreserved
// characters and slashes without dot segments. Most entries' <loc> are, and
// the full treatment costs a fifth of parsing a 50,000-entry list.
// FuzzPlainAbsURL holds it to that.
func plainAbsURL(ref string) bool {
	rest, ok := strings.CutPrefix(ref, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(ref, "http://"); !ok {
			return false
		}
	}
	host, path, ok := strings.Cut(rest, "/")
	if !ok || !plainHost(host) {
		return false
	}
	prev := byte('/')
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case isAlnum(c), c == '-', c == '_', c == '~':
		case c == '/':
		case c == '.':
			if prev == '/' {
				return false // a segment starting with a dot may be "." or ".."
			}
		default:
			return false
		}
		prev = c
	}
	return true
}

// plainHost reports whether host is a name of letters, digits, dots and
// hyphens, with at most a numeric port.
func plainHost(host string) bool {
	name, port, hasPort := strings.Cut(host, ":")
	if name == "" || (hasPort && port == "") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// mdAttrs holds the rs:md attributes tidings reads. Some publishers split
// the metadata over several rs:md elements; the first non-empty value of
// each attribute wins. An empty field means the attribute was absent.
type mdAttrs struct {
	capability, change, hash, typ, length string
	lastmod, datetime, from, until        string
	at, completed                         string
	note                                  string
}

func (md *mdAttrs) merge(el *elem) {
	for _, a := range el.attrs {
		if a.Name.Space == NSNote && a.Name.Local == "note" {
			if md.note == "" {
				md.note = noteText(a.Value)
			}
			continue
		}
		if !isPlainAttr(a) {
			continue
		}
		var f *string
		switch a.Name.Local {
		case "capability":
			f = &md.capability
		case "change":
			f = &md.change
		case "hash":
			f = &md.hash
		case "type":
			f = &md.typ
		case "length":
			f = &md.length
		case "lastmod":
			f = &md.lastmod
		case "datetime":
			f = &md.datetime
		case "from":
			f = &md.from
		case "until":
			f = &md.until
		case "at":
			f = &md.at
		case "completed":
			f = &md.completed
		default:
			continue
		}
		if *f == "" {
			*f = strings.TrimSpace(a.Value)
		}
	}
}

// attr returns the trimmed value of el's attribute key.
func (p *parser) attr(el *elem, key string) string {
	for _, a := range el.attrs {
		if a.Name.Local == key && isPlainAttr(a) {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

// isPlainAttr reports whether a is an rs:md or rs:ln attribute: those are
// unprefixed, though an rs-prefixed copy is tolerated.
func isPlainAttr(a xml.Attr) bool {
	switch a.Name.Space {
	case "":
		return a.Name.Local != "xmlns"
	case "xmlns":
		return false
	}
	return isRSNS(a.Name.Space)
}

// MaxNoteBytes bounds a change note kept from a change list.
const MaxNoteBytes = 500

// noteText is a note as kept: one line, valid UTF-8, at most
// MaxNoteBytes, cut on a character boundary.
func noteText(v string) string {
	v = strings.Join(strings.Fields(strings.ToValidUTF8(v, "")), " ")
	if len(v) <= MaxNoteBytes {
		return v
	}
	cut := MaxNoteBytes
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut]
}
