package arc

import (
	"bytes"
	"context"
	"net/url"
	"path"
	"strings"

	arcdoc "tidings/arc"
	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/source"
)

// Name names ARC sitemap collections in the store: one ARC sitemap is
// one collection, keyed by its URL.
const Name = "arc"

// arcWellKnown are the places Appendix E.5 names, relative to the root.
var arcWellKnown = []string{".well-known/arc-sitemap.json", "arc-sitemap.json"}

// maxARCCandidates bounds the robots.txt lines and JSON-LD links tried.
const maxARCCandidates = 10

func init() {
	harvest.Register(Source{}, source.Info{Tier: 0, Rank: 1, Help: "ARC sitemaps", Published: true,
		Follows: func(int) string { return "follows the site's ARC sitemap and its deltas" }})
}

// Source follows ARC sitemaps (Appendix E) and their daily delta feeds.
type Source struct{}

// Name is the name ARC collections are stored under.
func (Source) Name() string { return Name }

// arcDiscovery is one ARC discovery.
type arcDiscovery struct {
	*harvest.SiteDiscovery
	seen   map[string]bool
	found  int
	unsure error // a known ARC sitemap could not be fetched this time
}

// Discover looks at the well-known places, then at robots.txt Sitemap
// lines that name JSON or YAML documents, then at the given page (an ARC
// sitemap pasted as it is, or a JSON-LD Dataset naming one) and the home
// page. It stops at the first step that finds one.
func (Source) Discover(ctx context.Context, sd *harvest.SiteDiscovery) error {
	d := &arcDiscovery{SiteDiscovery: sd, seen: map[string]bool{}}
	steps := []func(context.Context){d.wellKnown, d.fromRobots, d.fromPages}
	for _, step := range steps {
		step(ctx)
		if d.found > 0 || sd.Refused() {
			break
		}
	}
	if d.found == 0 && d.unsure != nil {
		return d.unsure
	}
	return nil
}

func (d *arcDiscovery) wellKnown(ctx context.Context) {
	for _, p := range arcWellKnown {
		if d.try(ctx, d.Root()+p) || d.Refused() {
			return
		}
	}
}

func (d *arcDiscovery) fromRobots(ctx context.Context) {
	n := 0
	for _, u := range d.RobotsSitemaps(ctx) {
		if !arcCandidate(u) {
			continue
		}
		if n++; n > maxARCCandidates {
			d.Tried("robots.txt lists more than %d JSON or YAML sitemaps; the rest were not looked at", maxARCCandidates)
			return
		}
		d.try(ctx, u)
	}
}

// arcCandidate tells whether a sitemap URL may be an ARC sitemap rather
// than an XML sitemap (which other protocols read).
func arcCandidate(u string) bool {
	pu, err := url.Parse(u)
	if err != nil {
		return false
	}
	p := strings.TrimSuffix(strings.ToLower(pu.Path), ".gz")
	switch path.Ext(p) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return strings.Contains(path.Base(p), "arc-sitemap")
}

// fromPages reads the given page, then the home page when that is another.
func (d *arcDiscovery) fromPages(ctx context.Context) {
	pages := []string{d.Input()}
	if d.Input() != d.Root() {
		pages = append(pages, d.Root())
	}
	for _, p := range pages {
		d.fromPage(ctx, p)
		if d.found > 0 || d.Refused() {
			return
		}
	}
}

func (d *arcDiscovery) fromPage(ctx context.Context, page string) {
	resp, err := d.Get(ctx, page)
	if err != nil {
		d.Failed(err)
		return
	}
	if !strings.Contains(strings.ToLower(resp.ContentType), "html") {
		// A pasted ARC sitemap is taken as it is.
		if d.seen[page] {
			return
		}
		d.seen[page] = true
		d.accept(ctx, page, resp)
		return
	}
	links := arcdoc.DatasetLinks(bytes.NewReader(resp.Body), resp.URL)
	if len(links) == 0 {
		d.Tried("%s has no JSON-LD Dataset naming an ARC sitemap", page)
		return
	}
	for _, l := range links {
		d.try(ctx, l)
	}
}

// try fetches a candidate and takes it if it is an ARC sitemap.
func (d *arcDiscovery) try(ctx context.Context, u string) bool {
	if d.seen[u] {
		return false
	}
	d.seen[u] = true
	if d.Known(u) {
		return d.tryKnown(ctx, u)
	}
	resp, err := d.Get(ctx, u)
	if err != nil {
		d.Failed(err)
		return false
	}
	return d.accept(ctx, u, resp)
}

// tryKnown fetches a sitemap followed before, conditionally: unchanged, it
// is still an ARC sitemap. Its validators are not kept here: only the
// collection's harvest, which reads it, may advance them.
func (d *arcDiscovery) tryKnown(ctx context.Context, u string) bool {
	resp, _, err := d.Fetch(ctx, "", u)
	if err != nil {
		if !fetch.Gone(err) {
			d.unsure = err
		}
		d.Failed(err)
		return false
	}
	if resp.NotModified {
		d.Tried("%s, an ARC sitemap, was not modified", u)
		d.Add(db.CollectionSpec{Protocol: Name, Key: u, SourceURL: u})
		d.found++
		return true
	}
	return d.accept(ctx, u, resp)
}

func (d *arcDiscovery) accept(ctx context.Context, u string, resp *fetch.Response) bool {
	sm, err := arcdoc.Parse(bytes.NewReader(resp.Body), arcdoc.DetectFormat(resp.ContentType, u, resp.Body))
	if err != nil {
		if arcCandidate(u) {
			// Any page is tried as a pasted ARC sitemap; only a document
			// where one is looked for, or named like one, was meant as one.
			harvest.NoteFinding(ctx, invalid(u, err))
			if !strings.Contains(strings.ToLower(resp.ContentType), "html") {
				// A page answering for a missing one is no broken sitemap.
				d.BrokenFinding(harvest.Finding{Code: CodeInvalid, Document: u}, "the ARC sitemap %s is not valid: %s", u, trimARC(err))
			}
		}
		d.Tried("%s is not an ARC sitemap: %s", u, trimARC(err))
		if d.Known(u) {
			// Followed before: its harvest will say what is wrong with it.
			d.Add(db.CollectionSpec{Protocol: Name, Key: u, SourceURL: u})
			d.found++
			return true
		}
		return false
	}
	d.Tried("%s is an ARC sitemap (%s) of %d pages", u, sm.Format, len(sm.Pages)+len(sm.Skipped)+sm.SkippedUnlisted)
	spec := db.CollectionSpec{Protocol: Name, Key: u, SourceURL: u}
	if !d.Known(u) {
		spec.Title = d.arcTitle(ctx, sm, u)
	}
	d.Add(spec)
	d.found++
	return true
}

// arcTitle names a new collection after the home page's <title>, else the
// sitemap's site.
func (d *arcDiscovery) arcTitle(ctx context.Context, sm *arcdoc.Sitemap, u string) string {
	if t := d.HTMLTitle(ctx, d.Root()); t != "" {
		return t
	}
	if sm.Site != "" {
		return sm.Site
	}
	return u
}

func trimARC(err error) string {
	return strings.TrimPrefix(err.Error(), "arc: ")
}
