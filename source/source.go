// Package source is the registry of the sources of change information
// tidings follows: each says, in one place, its name as collections store
// it, how precise it is, and the words that tell a person what following
// a collection by it means. Every package that names a source to people
// (feeds, pages, the CLI's help, metrics) asks here; none switches on a
// source's name.
//
// Sources register themselves, from their adapter's package, in an init
// func: a binary follows the sources it links (harvest/sources links
// them all).
package source

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"slices"
	"sync"
)

// Info describes one source of change information.
type Info struct {
	// Name is the source's name as the store records a collection's
	// protocol ("sitemap"); stable across versions.
	Name string
	// Tier says how precise the source is, from 0, as the numbered kinds
	// of change information in docs/site-owners.md ("What a site must
	// publish") count from 1: 0, the site says what changed and when;
	// higher, tidings finds out by comparing. A site is followed by its
	// most precise source.
	Tier int
	// Rank orders the sources of one tier, lower first: which discovery
	// asks first, and how lists are ordered.
	Rank int
	// Help names the source in the CLI's help ("plain sitemaps").
	Help string
	// Follows says how tidings follows a collection of the source, after
	// the source's name in Describe: "follows the sitemap, confirmed by
	// reading pages". Watched is the collection's count of watched pages,
	// for sources that watch pages.
	Follows func(watched int) string
	// Published: the changes are the site's own change information, which
	// the feed's subtitle then says instead of how tidings found them.
	Published bool
	// KeyIsHome: the collection's key is the web page it stands for (a
	// ResourceSync collection's describes URL, a sitemap's scope); for
	// the others, whose keys name documents, the site's root is.
	KeyIsHome bool
	// NewSettings returns the source's own settings at their defaults;
	// nil when it has none.
	NewSettings func() Settings
}

// Settings are one source's own settings, which its flags set.
type Settings interface {
	// RegisterFlags registers the settings' flags on fs, each defaulting
	// to what the source takes when it is not given.
	RegisterFlags(fs *flag.FlagSet)
	// Validate says what is wrong with the settings given, as a sentence
	// naming the flag; nil when they can be used.
	Validate() error
}

// SettingsSet holds the settings of every source that has some, by the
// source's name.
type SettingsSet map[string]Settings

// DefaultSettings returns the registered sources' settings at their
// defaults.
func DefaultSettings() SettingsSet {
	out := SettingsSet{}
	for _, i := range All() {
		if i.NewSettings != nil {
			out[i.Name] = i.NewSettings()
		}
	}
	return out
}

// RegisterFlags registers every source's flags on fs: the one place a
// command line learns them.
func (s SettingsSet) RegisterFlags(fs *flag.FlagSet) {
	for _, n := range Names() {
		if st, ok := s[n]; ok {
			st.RegisterFlags(fs)
		}
	}
}

// Validate checks every source's settings.
func (s SettingsSet) Validate() error {
	var errs []error
	for _, n := range Names() {
		if st, ok := s[n]; ok {
			errs = append(errs, st.Validate())
		}
	}
	return errors.Join(errs...)
}

// Of returns the named source's settings: those in s, else its defaults;
// nil for a source without settings.
func (s SettingsSet) Of(name string) Settings {
	if st, ok := s[name]; ok {
		return st
	}
	if i, ok := Lookup(name); ok && i.NewSettings != nil {
		return i.NewSettings()
	}
	return nil
}

var (
	mu      sync.RWMutex
	sources = map[string]Info{}
)

// Register adds a source. It panics on a second source of one name, or
// one without a name or a description: both are programming errors a
// test of any binary shows at once.
func Register(i Info) {
	if i.Name == "" || i.Follows == nil || i.Help == "" {
		panic("source: register a source with its name, help and description")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := sources[i.Name]; dup {
		panic("source: " + i.Name + " registered twice")
	}
	sources[i.Name] = i
}

// Lookup returns the source registered under name.
func Lookup(name string) (Info, bool) {
	mu.RLock()
	defer mu.RUnlock()
	i, ok := sources[name]
	return i, ok
}

// All returns the registered sources, most precise first, by rank within
// a tier.
func All() []Info {
	mu.RLock()
	out := make([]Info, 0, len(sources))
	for _, i := range sources {
		out = append(out, i)
	}
	mu.RUnlock()
	slices.SortFunc(out, func(a, b Info) int {
		return cmp.Or(cmp.Compare(a.Tier, b.Tier), cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// Names returns the registered sources' names in the order of All.
func Names() []string {
	var out []string
	for _, i := range All() {
		out = append(out, i.Name)
	}
	return out
}

// Describe says, for people, how tidings follows a collection of the
// named source, and so how precise its changes are: the source's name,
// then what that means ("sitemap: follows the sitemap, confirmed by
// reading pages"). A source this binary does not know is named alone.
func Describe(name string, watched int) string {
	i, ok := Lookup(name)
	if !ok {
		return name
	}
	return i.Name + ": " + i.Follows(watched)
}

// Subtitle is a collection feed's subtitle: what it follows and how
// precisely.
func Subtitle(name, key string, watched int) string {
	if i, ok := Lookup(name); ok && i.Published {
		return "Changes to " + key + ", as the site's change information tells them"
	}
	return "Changes to " + key + " (" + Describe(name, watched) + ")"
}

// Home is the web page a collection stands for: its key where the source
// keys collections by a page, else the site's root.
func Home(name, key, siteURL string) string {
	if i, ok := Lookup(name); ok && i.KeyIsHome {
		return key
	}
	return siteURL
}

// Watches phrases a count of watched pages for a description: "its 1
// page", "12 of its pages".
func Watches(n int) string {
	if n == 1 {
		return "its 1 page"
	}
	return fmt.Sprintf("%d of its pages", n)
}
