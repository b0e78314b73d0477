package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"time"
)

// stamp is what a sitemap's lastmod says of a page.
type stamp int

const (
	// stampBuild: every URL carries the time of the last build, which
	// moves whenever any page changes (MkDocs, many Hugo themes).
	stampBuild stamp = iota
	// stampOwn: each URL carries its page's own last change.
	stampOwn
	// stampPosts: only the blog posts are dated, by their own last change
	// (jekyll-sitemap); the other pages have no lastmod.
	stampPosts
	// stampNone: no lastmod at all (sphinx-sitemap by default).
	stampNone
)

// sitemapVariant is how one sitemap site publishes its sitemap, after
// the static site generators that make most of them.
type sitemapVariant struct {
	name     string
	scope    string // where the site and its sitemap live
	stamp    stamp
	dateOnly bool // lastmod as 2026-01-02, not a full time
	// gzipTwin: sitemap.xml.gz beside sitemap.xml, the same URLs.
	gzipTwin bool
	// robots: robots.txt names the sitemap, which may then be anywhere.
	robots bool
	// index: the sitemap robots.txt names is an index of one gzipped
	// sitemap, as WordPress and Yoast publish them.
	index bool
	// fullNav: every page's navigation names every page (MkDocs).
	fullNav bool
}

// sitemapVariants are taken in turn by a fleet's sitemap sites: half
// stamp every URL with the build, half date pages honestly or not at
// all; some gzip, some are named only in robots.txt, some live under a
// path.
var sitemapVariants = []sitemapVariant{
	{name: "mkdocs", scope: "/", stamp: stampBuild, dateOnly: true, gzipTwin: true, fullNav: true},
	{name: "jekyll", scope: "/", stamp: stampPosts, robots: true},
	{name: "hugo", scope: "/", stamp: stampBuild, robots: true},
	{name: "wordpress", scope: "/", stamp: stampOwn, robots: true, index: true},
	{name: "mkdocs-project", scope: "/project/", stamp: stampBuild, dateOnly: true, gzipTwin: true, fullNav: true},
	{name: "sphinx-project", scope: "/docs/", stamp: stampNone},
}

// the blog section of a jekyll-like site, whose articles are its posts.
const postSection = 0

// sitemapPath is where the variant's sitemap (or index) is.
func (v sitemapVariant) sitemapPath() string {
	if v.index {
		return v.scope + "sitemap_index.xml"
	}
	return v.scope + "sitemap.xml"
}

// plainDocs renders a plain site's documents other than its pages at its
// current build: robots.txt, and for a sitemap site its sitemap files.
// base is the site's origin, without a trailing slash.
func (ps *plainSite) plainDocs(kind Kind, base string, epoch time.Time) map[string]doc {
	built := buildTime(epoch, ps.build)
	docs := map[string]doc{}
	put := func(path string, body []byte) {
		docs[path] = doc{body: body, etag: contentETag(body), modtime: built}
	}
	robots := "User-agent: *\nDisallow: /private/\n"
	if kind == KindSitemap && ps.variant.robots {
		robots += "\nSitemap: " + base + ps.variant.sitemapPath() + "\n"
	}
	put("/robots.txt", []byte(robots))
	put(ps.scope+"assets/site.css", []byte(siteCSS))
	if kind != KindSitemap {
		return docs
	}
	sm := ps.sitemap(base, epoch)
	v := ps.variant
	switch {
	case v.index:
		gz := gzipped(sm)
		put(v.scope+"sitemap-1.xml.gz", gz)
		put(v.sitemapPath(), fmt.Appendf(nil, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"+
			"  <sitemap>\n    <loc>%s%ssitemap-1.xml.gz</loc>\n    <lastmod>%s</lastmod>\n  </sitemap>\n</sitemapindex>\n", base, v.scope, built.Format(time.RFC3339)))
	case v.gzipTwin:
		put(v.sitemapPath(), sm)
		put(v.sitemapPath()+".gz", gzipped(sm))
	default:
		put(v.sitemapPath(), sm)
	}
	return docs
}

// sitemap renders the urlset of every page, dated as the variant dates
// them.
func (ps *plainSite) sitemap(base string, epoch time.Time) []byte {
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	format := time.RFC3339
	if ps.variant.dateOnly {
		format = time.DateOnly
	}
	for x, p := range ps.pages {
		fmt.Fprintf(&b, "  <url>\n    <loc>%s%s</loc>\n", base, p.path)
		var at time.Time
		switch ps.variant.stamp {
		case stampBuild:
			at = buildTime(epoch, ps.build)
		case stampOwn:
			at = ps.modTime(epoch, x)
		case stampPosts:
			if p.role == roleArticle && p.section == postSection {
				at = ps.modTime(epoch, x)
			}
		}
		if !at.IsZero() {
			fmt.Fprintf(&b, "    <lastmod>%s</lastmod>\n", at.Format(format))
		}
		if ps.variant.dateOnly {
			b.WriteString("    <changefreq>daily</changefreq>\n")
		}
		b.WriteString("  </url>\n")
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

func gzipped(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}
