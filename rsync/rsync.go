// Package rsync reads ResourceSync documents (ANSI/NISO Z39.99-2017): Source
// Descriptions, capability lists, change lists and their indexes, streamed.
// It never performs I/O beyond the io.Reader it is given; the hints that
// point at such documents are package hints'.
package rsync

import (
	"slices"
	"time"
)

// Namespace URIs. Elements are matched by these, never by prefix.
const (
	NSResourceSync = "http://www.openarchives.org/rs/terms/"
	NSSitemap      = "http://www.sitemaps.org/schemas/sitemap/0.9"
	// NSNote is the namespace of the change note `tidings publish`
	// writes on a change list entry's rs:md (`tidings:note="…"`): the
	// author's word on the change.
	NSNote = "urn:x-tidings:publish"
)

// Root tells which sitemap root element a document has.
type Root string

// The two sitemap roots.
const (
	RootURLSet       Root = "urlset"
	RootSitemapIndex Root = "sitemapindex"
)

// Capability values a document's root rs:md (or an entry's rs:md) may carry.
const (
	CapDescription          = "description"
	CapCapabilityList       = "capabilitylist"
	CapResourceList         = "resourcelist"
	CapChangeList           = "changelist"
	CapResourceDump         = "resourcedump"
	CapChangeDump           = "changedump"
	CapResourceDumpManifest = "resourcedump-manifest"
	CapChangeDumpManifest   = "changedump-manifest"
)

// Change kinds of a change list entry.
const (
	ChangeCreated = "created"
	ChangeUpdated = "updated"
	ChangeDeleted = "deleted"
)

// Link is an rs:ln element.
type Link struct {
	Rel  string `json:"rel"`
	Href string `json:"href"`
	Type string `json:"type,omitempty"`
}

// Document is one parsed ResourceSync document: a <urlset> or a
// <sitemapindex>, with its root rs:md and rs:ln and its entries.
type Document struct {
	URL        string     `json:"url"`
	Root       Root       `json:"root"`
	Capability string     `json:"capability,omitempty"`
	At         *time.Time `json:"at,omitempty"`
	Completed  *time.Time `json:"completed,omitempty"`
	From       *time.Time `json:"from,omitempty"`
	Until      *time.Time `json:"until,omitempty"`
	Links      []Link     `json:"links,omitempty"`
	Entries    []Entry    `json:"entries,omitempty"`
	// Warnings name problems that did not stop the parse, such as an entry
	// whose date could not be read (that attribute is then left nil).
	Warnings []string `json:"warnings,omitempty"`
	// WarningCodes names, by their index in Warnings, the warnings about
	// what a finding counts (a datetime that could not be read is
	// FindBadDatetime's), by the finding's code.
	WarningCodes map[int]string `json:"warning_codes,omitempty"`
	// Findings are the ways the document departs from what IFCC-0001 asks
	// of its authors (see Finding).
	Findings []Finding `json:"findings,omitempty"`
	// Newest is the latest date a change list entry carries (its
	// datetime, else its lastmod), and NewestLoc that entry's URL; nil
	// for other documents.
	Newest    *time.Time `json:"newest,omitempty"`
	NewestLoc string     `json:"newest_loc,omitempty"`
}

// Entry is one <url> or <sitemap> element.
type Entry struct {
	Loc        string     `json:"loc"`
	Lastmod    *time.Time `json:"lastmod,omitempty"`
	Capability string     `json:"capability,omitempty"`
	Change     string     `json:"change,omitempty"`
	Datetime   *time.Time `json:"datetime,omitempty"`
	Hash       string     `json:"hash,omitempty"`
	Length     int64      `json:"length,omitempty"`
	Type       string     `json:"type,omitempty"`
	From       *time.Time `json:"from,omitempty"`
	Until      *time.Time `json:"until,omitempty"`
	Links      []Link     `json:"links,omitempty"`
	// Note is the author's note on the change (NSNote), one line of at
	// most MaxNoteBytes.
	Note string `json:"note,omitempty"`
	// BadDates names the date attributes (lastmod, datetime, from, until)
	// that were present but unparseable, in the order read; each is left
	// nil and warned about. Whether the entry is still usable depends on
	// which date the reader needs.
	BadDates []string `json:"bad_dates,omitempty"`
}

// HasBadDate reports whether the entry's date attribute name was present
// but unparseable.
func (e *Entry) HasBadDate(name string) bool { return slices.Contains(e.BadDates, name) }

// IsIndex reports whether the document is a <sitemapindex>.
func (d *Document) IsIndex() bool { return d.Root == RootSitemapIndex }

// Link returns the href of the first root rs:ln with the given rel, or "".
func (d *Document) Link(rel string) string { return firstLink(d.Links, rel) }

// Link returns the href of the first rs:ln of the entry with the given rel,
// or "".
func (e *Entry) Link(rel string) string { return firstLink(e.Links, rel) }

func firstLink(links []Link, rel string) string {
	for _, l := range links {
		if l.Rel == rel {
			return l.Href
		}
	}
	return ""
}
