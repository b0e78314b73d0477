// Package feeds renders collections and their changes as feed documents:
// Atom 1.0, RSS 2.0 and JSON Feed 1.1, all from the same Feed, with the
// same entry ids. It does no I/O beyond writing to the io.Writer it is
// given and never touches the database: callers pass plain structs.
package feeds

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	gorilla "github.com/gorilla/feeds"
)

// DefaultAuthor is the feed author name used when Feed.Author is empty.
const DefaultAuthor = "tidings"

// Format is a feed document format.
type Format int

// The formats every feed is served in; Atom is the default.
const (
	Atom Format = iota
	RSS
	JSON
)

// Formats lists every format, the default first.
var Formats = []Format{Atom, RSS, JSON}

// Ext is the file extension of the format, without the dot: "atom",
// "rss" or "json".
func (f Format) Ext() string {
	switch f {
	case RSS:
		return "rss"
	case JSON:
		return "json"
	}
	return "atom"
}

// MediaType is the format's media type, without parameters.
func (f Format) MediaType() string {
	switch f {
	case RSS:
		return rssMediaType
	case JSON:
		return jsonMediaType
	}
	return atomMediaType
}

// String names the format for people: "Atom", "RSS" or "JSON Feed".
func (f Format) String() string {
	switch f {
	case RSS:
		return "RSS"
	case JSON:
		return "JSON Feed"
	}
	return "Atom"
}

// FormatByExt returns the format whose extension is ext ("atom", "rss",
// "json").
func FormatByExt(ext string) (Format, bool) {
	for _, f := range Formats {
		if f.Ext() == ext {
			return f, true
		}
	}
	return Atom, false
}

const (
	atomMediaType = "application/atom+xml"
	rssMediaType  = "application/rss+xml"
	jsonMediaType = "application/feed+json"
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
	SelfURL      string // this document's own URL, in the format written
	AlternateURL string // the HTML page the feed is about
	// HubURL is the WebSub hub that pushes this feed (rel="hub").
	HubURL string
	// NextURL is the document with the entries older than these (RFC 5005
	// rel="next" and rel="prev-archive"; JSON Feed's next_url).
	NextURL string
	// FirstURL, set on every document but the newest, is the newest one
	// (rel="first" and rel="current").
	FirstURL string
	Entries  []Entry
}

// Entry is one entry of a Feed.
type Entry struct {
	ID        string    // required, stable
	Title     string    // plain text; the Link, then the ID, when empty
	Updated   time.Time // required unless Published is set
	Published time.Time // optional (zero = omit)
	Link      string    // rel="alternate"; only http and https are written
	// ContentHTML is HTML; it is sanitized when written, so it may hold
	// text from sites as long as that text was escaped.
	ContentHTML string
	Summary     string   // optional plain text
	Author      string   // optional name
	Language    string   // optional BCP 47 tag; dropped unless well formed
	Categories  []string // optional; blank and repeated ones are dropped
}

// Write writes f in the given format to w. Nothing is written when an
// error is returned.
func Write(w io.Writer, f *Feed, format Format) error {
	switch format {
	case RSS:
		return WriteRSS(w, f)
	case JSON:
		return WriteJSON(w, f)
	}
	return WriteAtom(w, f)
}

// clean is a Feed made safe to write: text stripped of what XML forbids,
// content sanitized, links checked, defaults filled in. Every format is
// written from one, so all three carry the same ids, titles and links.
type clean struct {
	Feed
	// Language is shared by every entry, or empty.
	Language string
	// g is the same feed built with gorilla/feeds, whose output the writers
	// start from and then fix.
	g *gorilla.Feed
}

func prepare(f *Feed) (*clean, error) {
	if f == nil {
		return nil, errors.New("feeds: nil feed")
	}
	id := strings.TrimSpace(CleanText(f.ID))
	if id == "" {
		return nil, errors.New("feeds: feed has no id")
	}
	c := &clean{Feed: Feed{
		ID:           id,
		Title:        CleanText(f.Title),
		Subtitle:     CleanText(f.Subtitle),
		Updated:      f.Updated.UTC(),
		Author:       strings.TrimSpace(CleanText(f.Author)),
		SelfURL:      SafeURL(f.SelfURL),
		AlternateURL: SafeURL(f.AlternateURL),
		HubURL:       SafeURL(f.HubURL),
		NextURL:      SafeURL(f.NextURL),
		FirstURL:     SafeURL(f.FirstURL),
	}}
	if c.Author == "" {
		c.Author = DefaultAuthor
	}
	if strings.TrimSpace(c.Title) == "" {
		c.Title = firstOf(c.AlternateURL, id)
	}
	for i := range f.Entries {
		e, err := prepareEntry(&f.Entries[i])
		if err != nil {
			return nil, fmt.Errorf("feeds: feed %q: %w", id, err)
		}
		if e.Updated.After(c.Updated) {
			c.Updated = e.Updated
		}
		c.Entries = append(c.Entries, e)
	}
	if c.Updated.IsZero() {
		return nil, fmt.Errorf("feeds: feed %q has no updated time", id)
	}
	c.Language = sharedLanguage(c.Entries)
	c.g = c.gorilla()
	return c, nil
}

func prepareEntry(in *Entry) (Entry, error) {
	// An item without an id makes gorilla invent a random one per render.
	id := strings.TrimSpace(CleanText(in.ID))
	if id == "" {
		return Entry{}, errors.New("entry has no id")
	}
	e := Entry{
		ID:          id,
		Title:       CleanText(in.Title),
		Updated:     in.Updated.UTC(),
		Published:   in.Published.UTC(),
		Link:        SafeURL(in.Link),
		ContentHTML: sanitizeHTML(in.ContentHTML),
		Summary:     CleanText(in.Summary),
		Author:      strings.TrimSpace(CleanText(in.Author)),
		Language:    cleanLanguage(in.Language),
		Categories:  cleanCategories(in.Categories),
	}
	if in.Updated.IsZero() {
		e.Updated = e.Published
	}
	if e.Updated.IsZero() {
		return Entry{}, fmt.Errorf("entry %q has no updated time", id)
	}
	if strings.TrimSpace(e.Title) == "" {
		e.Title = firstOf(e.Link, id)
	}
	return e, nil
}

// firstOf returns the first non-empty string.
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sharedLanguage is the language every entry has, or "".
func sharedLanguage(entries []Entry) string {
	if len(entries) == 0 {
		return ""
	}
	lang := entries[0].Language
	for _, e := range entries[1:] {
		if !strings.EqualFold(e.Language, lang) {
			return ""
		}
	}
	return lang
}

func (c *clean) gorilla() *gorilla.Feed {
	g := &gorilla.Feed{
		Id:          c.ID,
		Title:       c.Title,
		Description: c.Subtitle,
		Subtitle:    c.Subtitle,
		Author:      &gorilla.Author{Name: c.Author},
		Updated:     c.Updated,
	}
	if c.AlternateURL != "" {
		g.Link = &gorilla.Link{Href: c.AlternateURL, Rel: "alternate", Type: htmlMediaType}
	}
	for _, e := range c.Entries {
		item := &gorilla.Item{
			Id:          e.ID,
			IsPermaLink: "false",
			Title:       e.Title,
			Description: e.Summary,
			Updated:     e.Updated,
			Created:     e.Published,
			Content:     e.ContentHTML,
		}
		if e.Link != "" {
			item.Link = &gorilla.Link{Href: e.Link, Rel: "alternate", Type: htmlMediaType}
		}
		if e.Author != "" {
			item.Author = &gorilla.Author{Name: e.Author}
		}
		g.Add(item)
	}
	return g
}

// pagingLinks are the RFC 5005 links of a document, by rel, in the order
// they are written.
func (c *clean) pagingLinks() [][2]string {
	var out [][2]string
	if c.FirstURL != "" {
		out = append(out, [2]string{"first", c.FirstURL}, [2]string{"current", c.FirstURL})
	}
	if c.NextURL != "" {
		out = append(out, [2]string{"next", c.NextURL}, [2]string{"prev-archive", c.NextURL})
	}
	return out
}

// hub is the WebSub hub written into the document: only the newest page
// is a topic anyone subscribes to.
func (c *clean) hub() string {
	if c.FirstURL != "" {
		return ""
	}
	return c.HubURL
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(in []string) []string {
	out := in[:0:0]
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
