package harvest

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"tidings/crawl"
	"tidings/db"
	"tidings/fetch"
	"tidings/hints"
	"tidings/source"
)

// ProtocolPages names watched page sets in the store: where a site
// publishes no change information, tidings finds its pages by a polite
// crawl and its changes by reading them again. One collection watches
// one scope (a directory of the site), keyed by its URL.
const ProtocolPages = "pages"

// Watched pages are the least precise source, asked only when nothing
// else was found.
func init() {
	register(pagesProtocol{}, source.Info{Tier: 2, Help: "watched pages",
		NewSettings: func() source.Settings { return &PagesSettings{WatchPages: DefaultWatchPages} },
		Follows: func(n int) string {
			return "the site publishes no change information; tidings watches " + source.Watches(n)
		}})
}

// pagesProtocol watches pages. It is the least precise source, asked
// only when nothing else was found.
type pagesProtocol struct{}

func (pagesProtocol) name() string { return ProtocolPages }

// discover keeps the site's watched scopes, and adds the scope of the
// address given when it is in none of them: the directory of the page it
// leads to. An address within a watched scope adds nothing here; its
// collection's harvest watches the page (see pagesHarvest.plan).
func (pagesProtocol) discover(ctx context.Context, d *SiteDiscovery) error {
	input, _ := crawl.Canonical(d.input, true)
	if keepWatched(d, input) {
		return nil
	}
	resp, err := d.page(ctx)
	if err != nil {
		// Another protocol may have tried the page already, and said so.
		if !slices.Contains(d.d.Tried, err.Error()) {
			d.failed(err)
		}
		return err
	}
	if !strings.Contains(strings.ToLower(resp.ContentType), "html") {
		d.triedf("%s is not an HTML page, so it has no pages to watch", d.input)
		return nil
	}
	final, ok := crawl.Canonical(resp.URL, true)
	scope, ok2 := crawl.ScopeOf(resp.URL)
	if !ok || !ok2 {
		d.triedf("%s led to %s, which tidings cannot watch", d.input, resp.URL)
		return nil
	}
	page := crawl.Parse(resp.Body, resp.URL, scope)
	if page.SignIn && final != input {
		d.triedf("%s leads to a sign-in page (%s); tidings watches only pages anyone can read", d.input, final)
		return nil
	}
	_, title := hints.HTMLHints(bytes.NewReader(resp.Body), resp.URL)
	if crawl.NotFound(title, "") {
		d.triedf("%s answers with a page saying it was not found (%q)", d.input, title)
		return nil
	}
	if len(page.Links) == 0 {
		d.warnf("%s has no links to follow; tidings watches this one page", final)
	}
	if title == "" {
		title = scope.URL()
	}
	if d.s.pages == nil {
		d.s.pages = map[string]*fetch.Response{}
	}
	d.s.pages[final] = resp
	d.add(db.CollectionSpec{Protocol: ProtocolPages, Key: scope.URL(), SourceURL: final, Title: title})
	return nil
}

// keepWatched keeps the site's watched page sets and reports whether one
// of them covers the address given.
func keepWatched(d *SiteDiscovery, input string) (covered bool) {
	for _, c := range d.stored {
		if c.Protocol != ProtocolPages {
			continue
		}
		d.add(db.CollectionSpec{Protocol: c.Protocol, Key: c.Key, SourceURL: c.SourceURL})
		if sc, ok := crawl.ScopeOf(c.Key); ok && sc.Contains(input) {
			covered = true
		}
	}
	return covered
}

// PageToWatch tells what following rawURL does to col, a watched page
// set: inScope, the address is inside its scope; adds, no page watched
// (listed in watched) is it under any of its spellings, so the harvest
// that follows adds it (see pagesHarvest.plan).
func PageToWatch(col db.Collection, watched []db.WatchedPage, rawURL string) (inScope, adds bool) {
	if col.Protocol != ProtocolPages {
		return false, false
	}
	_, input, err := NormalizeAddress(rawURL)
	if err != nil {
		return false, false
	}
	u, ok := crawl.Canonical(input, true)
	scope, ok2 := crawl.ScopeOf(col.Key)
	if !ok || !ok2 || !scope.Contains(u) {
		return false, false
	}
	for _, w := range watched {
		if crawl.AliasKey(w.URL) == crawl.AliasKey(u) {
			return true, false
		}
	}
	return true, true
}
