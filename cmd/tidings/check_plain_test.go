package main

import (
	"fmt"
	"strings"
	"testing"
)

// plainSitemapSite is a site whose robots.txt names a plain sitemap of
// six pages, each with its lastmod.
func plainSitemapSite(t *testing.T) (base string, pages []string) {
	t.Helper()
	docs := map[string]string{
		"/":           "<!doctype html><title>Fern Shrine</title><main><p>Welcome to the fern shrine.</p></main>",
		"/robots.txt": "User-agent: *\nAllow: /\nSitemap: {{base}}/sitemap.xml\n",
	}
	sitemap := `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`
	pages = []string{"/"}
	for i := 1; i <= 5; i++ {
		p := fmt.Sprintf("/fern-%d.html", i)
		pages = append(pages, p)
		docs[p] = fmt.Sprintf("<!doctype html><title>Fern %d</title><main><h1>Fern %d</h1><p>Notes on fern %d.</p></main>", i, i, i)
	}
	for i, p := range pages {
		sitemap += fmt.Sprintf("<url><loc>{{base}}%s</loc><lastmod>2026-0%d-1%dT00:00:00Z</lastmod></url>", p, i+1, i)
	}
	docs["/sitemap.xml"] = sitemap + "</urlset>"
	return newCheckSite(t, docs).URL, pages
}

// TestCheckOfAPlainSitemapSaysItOnce: the command's text says one thing of
// the sitemap (where the collection is read from, never "is a
// ResourceSync" and then "not a ResourceSync document"), counts the pages
// the sitemap lists, and starts each sentence with a capital.
func TestCheckOfAPlainSitemapSaysItOnce(t *testing.T) {
	t.Parallel()
	base, pages := plainSitemapSite(t)
	env := newEnv(t)
	r := tidings(t, env, "check", "--allow-private-addresses", base)
	mustSucceed(t, r)
	sm := base + "/sitemap.xml"
	var about []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("a line ends in a blank: %q", l)
		}
		if strings.Contains(l, sm+" ") {
			about = append(about, l)
		}
		for _, bad := range []string{"is a ResourceSync", "not a ResourceSync document", "0 documents read"} {
			if strings.Contains(l, bad) {
				t.Errorf("the check says %q", l)
			}
		}
	}
	if len(about) != 1 || !strings.Contains(about[0], "is where the collection") {
		t.Errorf("what the check says of the sitemap: %q, want one line\n%s", about, r.stdout)
	}
	if want := fmt.Sprintf("%d pages;", len(pages)); !strings.Contains(r.stdout, want) {
		t.Errorf("the output does not count the %d pages the sitemap lists (%q)\n%s", len(pages), want, r.stdout)
	}
	if !strings.Contains(r.stdout, sm+": 200 OK") {
		t.Errorf("the sitemap is not among the documents fetched\n%s", r.stdout)
	}
}
