package pages

import (
	"bytes"
	"context"
	"strings"

	"tidings/crawl"
	"tidings/db"
	"tidings/harvest"
	"tidings/hints"
	"tidings/source"
	"tidings/urls"
)

// Name names watched page sets in the store: where a site publishes no
// change information, tidings finds its pages by a polite
// crawl and its changes by reading them again. One collection watches
// one scope (a directory of the site), keyed by its URL.
const Name = "pages"

// Watched pages are the least precise source, asked only when nothing
// else was found.
func init() {
	harvest.Register(Source{}, source.Info{Tier: 2, Help: "watched pages",
		NewSettings: func() source.Settings { return &Settings{WatchPages: DefaultWatchPages} },
		Follows: func(n int) string {
			return "tidings found no change information it can read on the site, so it watches " + source.Watches(n)
		}})
}

// Source watches pages. It is the least precise source, asked only when
// nothing else was found.
type Source struct{}

// passKey prefixes the pages discovery passes on to the harvest.
const passKey = "pages:"

// Name is the name watched page sets are stored under.
func (Source) Name() string { return Name }

// Discover keeps the site's watched scopes, and adds the scope of the
// address given when it is in none of them: the directory of the page it
// leads to. An address within a watched scope adds nothing here; its
// collection's harvest watches the page (see pagesHarvest.plan).
func (Source) Discover(ctx context.Context, d *harvest.SiteDiscovery) error {
	input, _ := urls.Canonical(d.Input(), true)
	if keepWatched(d, input) {
		return nil
	}
	resp, err := d.Page(ctx)
	if err != nil {
		// Another protocol may have tried the page already, and said so.
		if !d.HasTried(err.Error()) {
			d.Failed(err)
		}
		return err
	}
	if !strings.Contains(strings.ToLower(resp.ContentType), "html") {
		d.Tried("%s is not an HTML page, so it has no pages to watch", d.Input())
		return nil
	}
	final, ok := urls.Canonical(resp.URL, true)
	scope, ok2 := urls.WatchScopeOf(resp.URL)
	if !ok || !ok2 {
		d.Tried("%s led to %s, which tidings cannot watch", d.Input(), resp.URL)
		return nil
	}
	page := crawl.Parse(resp.Body, resp.URL, scope)
	if page.SignIn && final != input {
		d.Tried("%s leads to a sign-in page (%s); tidings watches only pages anyone can read", d.Input(), final)
		return nil
	}
	_, title := hints.HTMLHints(bytes.NewReader(resp.Body), resp.URL)
	if crawl.NotFound(title, "") {
		d.Tried("%s answers with a page saying it was not found (%q)", d.Input(), title)
		return nil
	}
	if len(page.Links) == 0 {
		d.Warn("%s has no links to follow; tidings watches this one page", final)
	}
	if title == "" {
		title = scope.URL()
	}
	d.Pass(passKey+final, resp)
	d.Add(db.CollectionSpec{Protocol: Name, Key: scope.URL(), SourceURL: final, Title: title})
	return nil
}

// keepWatched keeps the site's watched page sets and reports whether one
// of them covers the address given.
func keepWatched(d *harvest.SiteDiscovery, input string) (covered bool) {
	for _, c := range d.Stored() {
		if c.Protocol != Name {
			continue
		}
		d.Add(db.CollectionSpec{Protocol: c.Protocol, Key: c.Key, SourceURL: c.SourceURL})
		if sc, ok := urls.WatchScopeOf(c.Key); ok && sc.Contains(input) {
			covered = true
		}
	}
	return covered
}

// PageToWatch tells what following rawURL does to col, a watched page
// set: inScope, the address is inside its scope; adds, no page watched
// (listed in watched) is it under any of its spellings, so the harvest
// that follows adds it (see pagesHarvest.plan). It makes Source a
// harvest.PageWatcher.
func (Source) PageToWatch(col db.Collection, watched []db.WatchedPage, rawURL string) (inScope, adds bool) {
	if col.Protocol != Name {
		return false, false
	}
	_, input, err := urls.Normalize(rawURL)
	if err != nil {
		return false, false
	}
	u, ok := urls.Canonical(input, true)
	scope, ok2 := urls.WatchScopeOf(col.Key)
	if !ok || !ok2 || !scope.Contains(u) {
		return false, false
	}
	for _, w := range watched {
		if urls.AliasKey(w.URL) == urls.AliasKey(u) {
			return true, false
		}
	}
	return true, true
}
