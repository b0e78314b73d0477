package harvest

import (
	"flag"
	"time"

	"tidings/pagetext"
)

// SnapshotSettings tune the page snapshots a harvest takes of the pages
// its changes name, to say what their text gained and lost. A zero field
// takes its default; the zero value takes snapshots.
type SnapshotSettings struct {
	// Off turns snapshots off: changes keep no text, no diff, and no page
	// is fetched beyond the change information itself.
	Off bool
	// PageFetches bounds the pages one site harvest fetches for their
	// text, newest changes first.
	PageFetches int
	// MaxText caps the text kept of one page, in bytes.
	MaxText int
	// MaxBody is the largest page read for its text, in bytes; a bigger
	// one keeps its change without a snapshot, with a warning.
	MaxBody int
	// PageTimeout bounds one page read: a page that drips its bytes must
	// not hold a worker for minutes.
	PageTimeout time.Duration
}

// Default snapshot settings.
const (
	DefaultPageFetches     = 100
	DefaultSnapshotMaxBody = 4 << 20
	DefaultPageTimeout     = 15 * time.Second
)

// RegisterFlags registers the snapshot settings' flags on fs, each
// defaulting to what a zero field takes.
func (s *SnapshotSettings) RegisterFlags(fs *flag.FlagSet) {
	d := SnapshotSettings{}.withDefaults()
	fs.BoolVar(&s.Off, "no-snapshots", false, "take no page snapshots: changes carry no title from the page and no text diff, and no page is fetched")
	fs.IntVar(&s.PageFetches, "page-fetches", d.PageFetches, "most pages one site's harvest fetches whole to compare their text, newest changes first (an answer 304, or the same bytes as before, gives its fetch back)")
	fs.IntVar(&s.MaxText, "snapshot-max-text", d.MaxText, "most text kept of one page, in bytes")
	fs.IntVar(&s.MaxBody, "snapshot-max-body", d.MaxBody, "largest page read for its text, in bytes")
	fs.DurationVar(&s.PageTimeout, "page-timeout", d.PageTimeout, "longest one page may take to read; a watched page that was slow gets a third of it")
}

func (s SnapshotSettings) withDefaults() SnapshotSettings {
	if s.PageFetches <= 0 {
		s.PageFetches = DefaultPageFetches
	}
	if s.MaxText <= 0 {
		s.MaxText = pagetext.DefaultMaxText
	}
	if s.MaxBody <= 0 {
		s.MaxBody = DefaultSnapshotMaxBody
	}
	if s.PageTimeout <= 0 {
		s.PageTimeout = DefaultPageTimeout
	}
	return s
}

func (s SnapshotSettings) extractor() pagetext.Options {
	return pagetext.Options{MaxText: s.MaxText, MaxBody: s.MaxBody}
}
