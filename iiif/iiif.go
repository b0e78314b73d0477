// Package iiif parses the documents of the IIIF Change Discovery API 1.0:
// an Activity Streams OrderedCollection, its OrderedCollectionPages of
// Create, Update, Delete, Move, Add, Remove and Refresh activities, the
// label and home page of a Presentation API Manifest, and the
// <link rel="alternate"> of an HTML page that names a stream. Bytes in,
// typed values out, no I/O.
//
// Documents are judged by what they hold, not by their Content-Type:
// streams are served as application/ld+json with either profile, as
// application/json and even as text/plain.
package iiif

import (
	"errors"
	"time"
)

// Limits of what one document may cost. A page of activities is typically
// a few hundred; the caps leave room for generous publishers while
// keeping a hostile one to a bounded read.
const (
	// MaxDocumentBytes is the most a collection, page or Manifest may
	// hold; a longer one is refused with ErrTooLarge.
	MaxDocumentBytes = 16 << 20
	// MaxActivities is the most activities one page may list; a page of
	// more is refused with ErrTooLarge (its newest activities are last,
	// so keeping a part would keep the wrong ones).
	MaxActivities = 20_000
	// MaxURLBytes is the longest identifier kept, as the other parsers
	// keep; an activity naming a longer one is skipped with a warning.
	MaxURLBytes = 2048
	// MaxLabelBytes is the most of one label kept, cut at a character.
	MaxLabelBytes = 512
	// MaxLanguages is the most languages of one label kept.
	MaxLanguages = 32
	// maxWarnings is how many warnings a page keeps in words; the rest
	// are counted.
	maxWarnings = 10
)

// Profiles a stream is served with or linked by (the spec's section 4.1,
// and Activity Streams' own).
const (
	DiscoveryContext       = "http://iiif.io/api/discovery/1/context.json"
	ActivityStreamsProfile = "https://www.w3.org/ns/activitystreams"
)

// Sentinels a parse error wraps, so that a caller can say what is wrong
// in a publisher's words (errors.Is).
var (
	// ErrNotJSON: the document is not JSON at all (an HTML page, a typo).
	ErrNotJSON = errors.New("iiif: not JSON")
	// ErrNotStream: JSON, but neither an OrderedCollection nor an
	// OrderedCollectionPage.
	ErrNotStream = errors.New("iiif: not an Activity Streams OrderedCollection or page")
	// ErrNoLast: an OrderedCollection without the last page the
	// processing algorithm starts from.
	ErrNoLast = errors.New("iiif: the OrderedCollection names no last page")
	// ErrTooLarge: past MaxDocumentBytes or MaxActivities.
	ErrTooLarge = errors.New("iiif: the document is too large")
	// ErrNotManifest: JSON, but no IIIF Manifest or Collection.
	ErrNotManifest = errors.New("iiif: not a IIIF Manifest or Collection")
)

// Error is a document that could not be read: a sentence for people and
// the sentinel behind it.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return "iiif: " + e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Activity types (the spec's section 3.3).
const (
	Create  = "Create"
	Update  = "Update"
	Delete  = "Delete"
	Move    = "Move"
	Add     = "Add"
	Remove  = "Remove"
	Refresh = "Refresh"
)

// Ref is a resource an activity names: its object, a Move's or an Add's
// target, a Remove's origin.
type Ref struct {
	ID    string
	Type  string
	Label Label
}

// Activity is one entry of a page's orderedItems.
type Activity struct {
	Type   string
	Object Ref
	// Target is a Move's new place or the stream an Add adds to; Origin
	// the stream a Remove removes from. Empty IDs when absent.
	Target Ref
	Origin Ref
	// EndTime and StartTime are in UTC; zero when absent or unreadable.
	EndTime   time.Time
	StartTime time.Time
}

// Time is when the activity happened as the stream orders it: its
// endTime, else its startTime (a Refresh has only a startTime).
func (a *Activity) Time() time.Time {
	if !a.EndTime.IsZero() {
		return a.EndTime
	}
	return a.StartTime
}

// Collection is an OrderedCollection: the stream's entry point.
type Collection struct {
	ID         string
	First      string
	Last       string
	TotalItems int64
	Label      Label
}

// Page is an OrderedCollectionPage: activities oldest first.
type Page struct {
	ID     string
	PartOf string
	Prev   string
	Next   string
	Items  []Activity
	// Warnings say what was skipped, the first few in words;
	// MoreWarnings counts the rest.
	Warnings     []string
	MoreWarnings int
}

func (p *Page) warn(msg string) {
	if len(p.Warnings) < maxWarnings {
		p.Warnings = append(p.Warnings, msg)
		return
	}
	p.MoreWarnings++
}

// Document is what Parse found: a collection or a page, the other nil.
type Document struct {
	Collection *Collection
	Page       *Page
}

// Manifest is what tidings takes of a Presentation API Manifest (or
// Collection): what to call it and the web page that shows it.
type Manifest struct {
	Label    Label
	Homepage string
}
