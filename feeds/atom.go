package feeds

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"time"

	gorilla "github.com/gorilla/feeds"
)

const atomNS = "http://www.w3.org/2005/Atom"

// atomFeed is the document actually marshalled. It replaces
// gorilla.AtomFeed because gorilla takes the feed <id> from the link,
// writes a single <link> (so no rel="self", "hub" or paging links), and may
// leave the author out.
type atomFeed struct {
	XMLName  xml.Name            `xml:"feed"`
	Xmlns    string              `xml:"xmlns,attr"`
	ID       string              `xml:"id"`
	Title    string              `xml:"title"`
	Subtitle string              `xml:"subtitle,omitempty"`
	Updated  string              `xml:"updated"`
	Author   *gorilla.AtomAuthor `xml:"author"`
	Links    []gorilla.AtomLink
	Entries  []*atomEntry `xml:"entry"`
}

// atomEntry replaces gorilla.AtomEntry because gorilla writes a link with
// an empty href when there is none, types every summary as html, never
// writes <published>, categories or xml:lang, and omits <content> when it
// is empty.
type atomEntry struct {
	XMLName    xml.Name            `xml:"entry"`
	Lang       string              `xml:"http://www.w3.org/XML/1998/namespace lang,attr,omitempty"`
	ID         string              `xml:"id"`
	Title      string              `xml:"title"`
	Updated    string              `xml:"updated"`
	Published  string              `xml:"published,omitempty"`
	Author     *gorilla.AtomAuthor `xml:"author"`
	Links      []gorilla.AtomLink
	Categories []atomCategory `xml:"category"`
	Summary    *gorilla.AtomSummary
	Content    *gorilla.AtomContent
}

// atomCategory has the term attribute RFC 4287 requires, which gorilla's
// categories lack.
type atomCategory struct {
	Term string `xml:"term,attr"`
}

// WriteAtom writes f as an Atom 1.0 document (RFC 4287) to w. Text is
// stripped of characters XML 1.0 forbids, content is sanitized, times are
// written in UTC, and links other than http and https are left out. The
// same input always gives the same bytes. Nothing is written when an error
// is returned.
func WriteAtom(w io.Writer, f *Feed) error {
	c, err := prepare(f)
	if err != nil {
		return err
	}
	return writeXML(w, c.ID, "atom", buildAtom(c))
}

// writeXML encodes doc, indented, after the XML declaration.
func writeXML(w io.Writer, id, format string, doc any) error {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("feeds: encode %s feed %q: %w", format, id, err)
	}
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("feeds: write %s feed %q: %w", format, id, err)
	}
	return nil
}

func buildAtom(c *clean) *atomFeed {
	built := (&gorilla.Atom{Feed: c.g}).AtomFeed()
	doc := &atomFeed{
		Xmlns:    atomNS,
		ID:       c.ID,
		Title:    built.Title,
		Subtitle: built.Subtitle,
		Updated:  built.Updated,
		Author:   built.Author,
		Links:    atomFeedLinks(c),
	}
	if doc.Author == nil {
		doc.Author = &gorilla.AtomAuthor{AtomPerson: gorilla.AtomPerson{Name: c.Author}}
	}
	for i, e := range built.Entries {
		doc.Entries = append(doc.Entries, fixAtomEntry(e, &c.Entries[i]))
	}
	return doc
}

// atomFeedLinks replaces gorilla's single feed link.
func atomFeedLinks(c *clean) []gorilla.AtomLink {
	var links []gorilla.AtomLink
	if c.SelfURL != "" {
		links = append(links, gorilla.AtomLink{Href: c.SelfURL, Rel: "self", Type: atomMediaType})
	}
	if c.AlternateURL != "" {
		links = append(links, gorilla.AtomLink{Href: c.AlternateURL, Rel: "alternate", Type: htmlMediaType})
	}
	if hub := c.hub(); hub != "" {
		links = append(links, gorilla.AtomLink{Href: hub, Rel: "hub"})
	}
	for _, l := range c.pagingLinks() {
		links = append(links, gorilla.AtomLink{Href: l[1], Rel: l[0], Type: atomMediaType})
	}
	return links
}

func fixAtomEntry(built *gorilla.AtomEntry, e *Entry) *atomEntry {
	out := &atomEntry{
		Lang:    e.Language,
		ID:      built.Id,
		Title:   built.Title,
		Updated: atomTime(e.Updated),
		// gorilla leaves <content> out when empty; an entry without an
		// alternate link then lacks what RFC 4287 section 4.1.1 requires.
		Content: &gorilla.AtomContent{Content: e.ContentHTML, Type: "html"},
	}
	if !e.Published.IsZero() {
		out.Published = atomTime(e.Published)
	}
	if e.Link != "" {
		out.Links = []gorilla.AtomLink{{Href: e.Link, Rel: "alternate", Type: htmlMediaType}}
	}
	if e.Author != "" {
		out.Author = &gorilla.AtomAuthor{AtomPerson: gorilla.AtomPerson{Name: e.Author}}
	}
	for _, term := range e.Categories {
		out.Categories = append(out.Categories, atomCategory{Term: term})
	}
	if e.Summary != "" {
		out.Summary = &gorilla.AtomSummary{Content: e.Summary, Type: "text"}
	}
	return out
}

// atomTime writes an entry's time to the microsecond it has, and with no
// fraction when it has none (as the times sites give mostly are). The
// times tidings sets itself, such as the end of a harvest, are that
// precise, and the entries of harvests that ended within one second (a
// person's feed of several sites) would otherwise share an <updated>,
// which validators and readers take for one update.
func atomTime(t time.Time) string { return t.Truncate(time.Microsecond).Format(time.RFC3339Nano) }
