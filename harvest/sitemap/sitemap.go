package sitemap

import (
	"bytes"
	"context"
	"strings"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/harvest/listed"
	smdoc "tidings/sitemap"
	"tidings/source"
	"tidings/urls"
)

// Name names the collections followed by comparing a site's successive
// plain sitemaps, one per scope.
const Name = "sitemap"

// maxSitemapChildren bounds the sitemaps of an index one harvest reads:
// an index may name thousands.
const maxSitemapChildren = 20

// passKey prefixes the sitemaps discovery passes on to the first harvest.
const passKey = "sitemap:"

// StampWarning says, on the site's page and in `tidings check`, why every
// page is read.
const StampWarning = listed.StampWarning

// maxSitemapCandidates bounds the sitemaps discovery looks into.
const maxSitemapCandidates = 10

// A plain sitemap is asked only when the site publishes no ResourceSync,
// SCP or ARC; it is more precise than watching pages.
func init() {
	harvest.Register(Source{}, source.Info{Tier: 1, Help: "plain sitemaps", KeyIsHome: true,
		Follows: func(int) string { return "follows the sitemap, confirmed by reading pages" }})
}

// Source follows a plain sitemap, of tier 1, the second of the three
// kinds of change information (docs/site-owners.md, "What a site must
// publish"): each harvest compares the pages it lists with those it listed
// before, and reads the pages whose dates moved to confirm that their text
// changed.
type Source struct{}

// Name is the name sitemap collections are stored under.
func (Source) Name() string { return Name }

// looksLikeSitemap: the address given names a sitemap itself.
func looksLikeSitemap(u string) bool {
	p := strings.ToLower(u)
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	return strings.HasSuffix(p, ".xml") || strings.HasSuffix(p, ".xml.gz")
}

// sitemapCandidates lists where a scope's sitemap may be, most specific
// first: the address given when it is one, the scope's own sitemap.xml
// (project sites keep it under their path, often with no robots.txt at the
// root), the Sitemap lines of robots.txt, then the root's.
func sitemapCandidates(ctx context.Context, d *harvest.SiteDiscovery, scope string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(u string) {
		if !seen[u] && len(out) < maxSitemapCandidates {
			seen[u] = true
			out = append(out, u)
		}
	}
	if looksLikeSitemap(d.Input()) {
		add(d.Input())
	}
	if scope != d.Root() {
		add(scope + "sitemap.xml")
		add(scope + "sitemap_index.xml")
	}
	for _, u := range d.RobotsSitemaps(ctx) {
		add(u)
	}
	add(d.Root() + "sitemap.xml")
	add(d.Root() + "sitemap_index.xml")
	return out
}

// Discover takes the first sitemap that lists a page of the scope (or is
// an index on the site's host) as the scope's collection.
func (Source) Discover(ctx context.Context, d *harvest.SiteDiscovery) error {
	scope := urls.Scope(d.Input())
	var unsure error
	for _, u := range sitemapCandidates(ctx, d, scope) {
		resp, err := d.Get(ctx, u)
		if err != nil {
			if !fetch.Gone(err) {
				unsure = err
			}
			d.Failed(err)
			if d.Halted() {
				return nil
			}
			continue
		}
		doc, err := smdoc.Parse(bytes.NewReader(resp.Body), smdoc.Options{Scope: scope, MaxChildren: maxSitemapChildren})
		if err != nil {
			d.Tried("%s is not a sitemap: %s", u, trimSitemap(err))
			continue
		}
		if !doc.Index && len(doc.URLs) == 0 {
			if doc.Skipped.OutOfScope > 0 {
				d.Tried("the sitemap %s lists no page under %s", u, scope)
			} else {
				d.Tried("the sitemap %s lists no page of this site", u)
			}
			continue
		}
		if doc.Index && len(doc.Children) == 0 {
			d.Tried("the sitemap index %s names no sitemap on this site", u)
			continue
		}
		spec := db.CollectionSpec{Protocol: Name, Key: scope, SourceURL: u}
		if !d.Known(scope) {
			spec.Title = scope
			if t := d.HTMLTitle(ctx, d.Input()); t != "" && !looksLikeSitemap(d.Input()) {
				spec.Title = t
			}
		}
		if d.WantTitle() && d.SiteTitle() == "" {
			d.SetSiteTitle(d.HTMLTitle(ctx, d.Root()))
		}
		d.Add(spec)
		// The first harvest takes the parse from here rather than read
		// the sitemap again.
		d.Pass(passKey+u, &passed{doc: doc, validators: &fetch.Response{
			URL: resp.URL, ETag: resp.ETag, LastModified: resp.LastModified}})
		return nil
	}
	// Nothing found: a sitemap that could not be read this time leaves
	// the collection found before as it is.
	return unsure
}

func trimSitemap(err error) string {
	return strings.TrimPrefix(err.Error(), "sitemap: ")
}
