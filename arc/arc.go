// Package arc reads ARC sitemaps (Appendix E of the ARC specification):
// JSON or YAML documents listing a site's pages with their last
// modification, an AI summary, tags and a content checksum, as the full
// sitemap or as a daily delta feed. It validates them against the
// specification's schema and finds the JSON-LD Dataset that points to one.
// It does no I/O beyond reading the io.Reader it is given.
package arc

import (
	"fmt"
	"strings"
	"time"
)

// Format is the syntax of a document.
type Format int

// Formats.
const (
	JSON Format = iota
	YAML
)

func (f Format) String() string {
	if f == YAML {
		return "YAML"
	}
	return "JSON"
}

// Sitemap is one ARC sitemap document: the full sitemap or a delta feed.
type Sitemap struct {
	Format      Format
	Version     string
	Site        string
	GeneratedAt time.Time // UTC
	// CrawlRate is the site's rate hint as written ("1/s", "10/m"), or "".
	CrawlRate string
	Pages     []Page
	// Skipped lists the pages that failed validation, in document order:
	// all of those that name a URL (the harvest must not take them for
	// deleted), the others up to maxUnnamedSkipped.
	Skipped []Skipped
	// SkippedUnlisted counts the invalid entries naming no URL past
	// maxUnnamedSkipped: a list of millions of non-objects must not cost
	// a record each.
	SkippedUnlisted int
	// Warnings are about the document itself (not its pages), for people.
	Warnings []string
}

// Page is one valid page entry. Times are UTC.
type Page struct {
	URL             string
	Lastmod         *time.Time
	Indexable       bool // ai_indexable
	Summary         string
	Tags            []string
	Checksum        string
	Title           string // the ai_snapshot's title, if any
	Priority        *float64
	AuthRequired    bool
	RobotsDirective string
}

// Private reports whether the site asks that the page not be indexed:
// ai_indexable false, auth_required true, or a robots_directive of noindex
// (or none, which implies it). Parse already blanks such a page's summary,
// tags and title.
func (p Page) Private() bool {
	return !p.Indexable || p.AuthRequired || noindex(p.RobotsDirective)
}

func noindex(directive string) bool {
	d := strings.ToLower(directive)
	if strings.Contains(d, "noindex") {
		return true
	}
	for _, tok := range strings.FieldsFunc(d, func(r rune) bool { return r == ',' || r == ' ' || r == ':' || r == ';' }) {
		if tok == "none" {
			return true
		}
	}
	return false
}

// Skipped is a page entry that failed validation.
type Skipped struct {
	Index int    // 1-based position in pages
	URL   string // its url when that was a usable http(s) URL, else ""
	// Private: the entry carries a sign that the site wants it kept out of
	// indexes, so its URL must not be shown either.
	Private bool
	Reason  string
}

func (s Skipped) String() string {
	if s.URL != "" && !s.Private {
		return fmt.Sprintf("page %d (%s) %s", s.Index, s.URL, s.Reason)
	}
	return fmt.Sprintf("page %d %s", s.Index, s.Reason)
}

// Error is a document that is not a valid ARC sitemap. Line is 0 when
// unknown.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("arc: line %d: %s", e.Line, e.Msg)
	}
	return "arc: " + e.Msg
}

func errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}
