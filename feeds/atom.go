// Package feeds renders collections and their changes as feed documents.
// It does no I/O beyond writing to the io.Writer it is given and never
// touches the database: callers pass plain structs.
package feeds

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	gorilla "github.com/gorilla/feeds"
)

// DefaultAuthor is the feed author name used when Feed.Author is empty.
const DefaultAuthor = "tidings"

const (
	atomNS        = "http://www.w3.org/2005/Atom"
	atomMediaType = "application/atom+xml"
	htmlMediaType = "text/html"
)

// Feed is what a rendered feed needs.
type Feed struct {
	ID       string // stable feed id (a tag: URI), required
	Title    string // the AlternateURL, then the ID, when empty
	Subtitle string
	// Updated is used when it is newer than every entry's Updated time,
	// which makes it required for a feed without entries.
	Updated      time.Time
	Author       string // name; DefaultAuthor if empty
	SelfURL      string // rel="self", type application/atom+xml
	AlternateURL string // rel="alternate", type text/html
	Entries      []Entry
}

// Entry is one entry of a Feed.
type Entry struct {
	ID          string    // required, stable
	Title       string    // the Link, then the ID, when empty
	Updated     time.Time // required unless Published is set
	Published   time.Time // optional (zero = omit)
	Link        string    // rel="alternate"; only http and https are written
	ContentHTML string    // HTML built or escaped by the caller; <content type="html">
	Summary     string    // optional plain text
}

// atomFeed is the document actually marshalled. It replaces
// gorilla.AtomFeed because gorilla takes the feed <id> from the link,
// writes a single <link> (so no rel="self"), and may leave the author out.
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
// writes <published>, and omits <content> when it is empty.
type atomEntry struct {
	XMLName   xml.Name `xml:"entry"`
	ID        string   `xml:"id"`
	Title     string   `xml:"title"`
	Updated   string   `xml:"updated"`
	Published string   `xml:"published,omitempty"`
	Links     []gorilla.AtomLink
	Summary   *gorilla.AtomSummary
	Content   *gorilla.AtomContent
}

// WriteAtom writes f as an Atom 1.0 document (RFC 4287) to w. Text is
// stripped of characters XML 1.0 forbids, times are written in UTC, and
// links other than http and https are left out. The same input always
// gives the same bytes. Nothing is written when an error is returned.
func WriteAtom(w io.Writer, f *Feed) error {
	doc, err := buildAtom(f)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("feeds: encode atom feed %q: %w", doc.ID, err)
	}
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("feeds: write atom feed %q: %w", doc.ID, err)
	}
	return nil
}

func buildAtom(f *Feed) (*atomFeed, error) {
	if f == nil {
		return nil, errors.New("feeds: nil feed")
	}
	id := strings.TrimSpace(cleanText(f.ID))
	if id == "" {
		return nil, errors.New("feeds: feed has no id")
	}
	updated := f.Updated
	for i := range f.Entries {
		if t := entryTime(&f.Entries[i]); t.After(updated) {
			updated = t
		}
	}
	if updated.IsZero() {
		return nil, fmt.Errorf("feeds: feed %q has no updated time", id)
	}
	author := strings.TrimSpace(cleanText(f.Author))
	if author == "" {
		author = DefaultAuthor
	}

	g := &gorilla.Feed{
		Id:          id,
		Title:       cleanText(f.Title),
		Description: cleanText(f.Subtitle),
		Author:      &gorilla.Author{Name: author},
		Updated:     updated.UTC(),
	}
	for i := range f.Entries {
		item, err := gorillaItem(&f.Entries[i])
		if err != nil {
			return nil, fmt.Errorf("feeds: feed %q: %w", id, err)
		}
		g.Add(item)
	}
	built := (&gorilla.Atom{Feed: g}).AtomFeed()

	doc := &atomFeed{
		Xmlns:    atomNS,
		ID:       id,
		Title:    built.Title,
		Subtitle: built.Subtitle,
		Updated:  built.Updated,
		Author:   built.Author,
		Links:    feedLinks(f),
	}
	if strings.TrimSpace(doc.Title) == "" {
		doc.Title = id
		if u := safeURL(f.AlternateURL); u != "" {
			doc.Title = u
		}
	}
	for i, e := range built.Entries {
		doc.Entries = append(doc.Entries, fixEntry(e, g.Items[i], &f.Entries[i]))
	}
	return doc, nil
}

// feedLinks replaces gorilla's single feed link, which has no rel="self".
func feedLinks(f *Feed) []gorilla.AtomLink {
	var links []gorilla.AtomLink
	if u := safeURL(f.SelfURL); u != "" {
		links = append(links, gorilla.AtomLink{Href: u, Rel: "self", Type: atomMediaType})
	}
	if u := safeURL(f.AlternateURL); u != "" {
		links = append(links, gorilla.AtomLink{Href: u, Rel: "alternate", Type: htmlMediaType})
	}
	return links
}

// entryTime is the time an entry's <updated> will carry.
func entryTime(e *Entry) time.Time {
	if !e.Updated.IsZero() {
		return e.Updated
	}
	return e.Published
}

func gorillaItem(e *Entry) (*gorilla.Item, error) {
	// An item without Id makes gorilla invent a random one per render.
	id := strings.TrimSpace(cleanText(e.ID))
	if id == "" {
		return nil, errors.New("entry has no id")
	}
	if entryTime(e).IsZero() {
		return nil, fmt.Errorf("entry %q has no updated time", id)
	}
	item := &gorilla.Item{
		Id:      id,
		Title:   cleanText(e.Title),
		Updated: e.Updated.UTC(),
		Created: e.Published.UTC(),
		Content: cleanText(e.ContentHTML),
	}
	if u := safeURL(e.Link); u != "" {
		item.Link = &gorilla.Link{Href: u, Rel: "alternate", Type: htmlMediaType}
	}
	return item, nil
}

func fixEntry(built *gorilla.AtomEntry, item *gorilla.Item, e *Entry) *atomEntry {
	out := &atomEntry{
		ID:      built.Id,
		Title:   built.Title,
		Updated: built.Updated,
		// gorilla leaves <content> out when empty; an entry without an
		// alternate link then lacks what RFC 4287 section 4.1.1 requires.
		Content: &gorilla.AtomContent{Content: item.Content, Type: "html"},
	}
	if !item.Created.IsZero() {
		out.Published = item.Created.Format(time.RFC3339)
	}
	if item.Link != nil {
		out.Links = built.Links[:1]
	}
	if s := cleanText(e.Summary); s != "" {
		out.Summary = &gorilla.AtomSummary{Content: s, Type: "text"}
	}
	if strings.TrimSpace(out.Title) == "" {
		out.Title = out.ID
		if item.Link != nil {
			out.Title = item.Link.Href
		}
	}
	return out
}
