package pages

import (
	"flag"
	"fmt"
)

// Settings tune watched pages, the source tidings falls back on when
// a site publishes no change information.
type Settings struct {
	// WatchPages bounds the pages one collection watches.
	WatchPages int
}

// DefaultWatchPages is how many pages a watched collection holds at most.
const DefaultWatchPages = 200

// RegisterFlags registers the watched pages' flags on fs.
func (s *Settings) RegisterFlags(fs *flag.FlagSet) {
	fs.IntVar(&s.WatchPages, "watch-pages", DefaultWatchPages, "most pages tidings watches in one collection of a site that publishes no change information")
}

func (s Settings) withDefaults() Settings {
	if s.WatchPages <= 0 {
		s.WatchPages = DefaultWatchPages
	}
	return s
}

// Validate refuses a bound of no pages: zero would silently mean the
// default.
func (s *Settings) Validate() error {
	if s.WatchPages <= 0 {
		return fmt.Errorf("--watch-pages must be positive, not %d", s.WatchPages)
	}
	return nil
}
