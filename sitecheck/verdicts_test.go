package sitecheck

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestPlainSitemapHasOneVerdict: a plain sitemap that robots.txt names is
// said once, as where its collection is read from (not also "a ResourceSync
// " and then "not a ResourceSync document"); the collection's counts are
// those of the list of documents fetched; every problem and note is a
// sentence of its own.
func TestPlainSitemapHasOneVerdict(t *testing.T) {
	docs := map[string]string{
		"/":           "<!doctype html><title>Fern Shrine</title><main><p>Welcome to the fern shrine.</p></main>",
		"/robots.txt": "User-agent: *\nAllow: /\nSitemap: {{base}}/sitemap.xml\n",
	}
	sitemap := `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`
	pages := []string{"/"}
	for i := 1; i <= 5; i++ {
		p := fmt.Sprintf("/fern-%d.html", i)
		pages = append(pages, p)
		docs[p] = fmt.Sprintf("<!doctype html><title>Fern %d</title><main><h1>Fern %d</h1><p>Notes on fern %d, its fronds and where it grows.</p></main>", i, i, i)
	}
	for i, p := range pages {
		sitemap += fmt.Sprintf("<url><loc>{{base}}%s</loc><lastmod>2026-0%d-1%dT00:00:00Z</lastmod></url>", p, i+1, i)
	}
	docs["/sitemap.xml"] = sitemap + "</urlset>"
	site := newCheckSite(t, docs)
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL)
	sm := site.URL + "/sitemap.xml"
	var about []string
	for _, l := range append(append([]string{}, rep.Found...), rep.Tried...) {
		if strings.HasPrefix(l, sm+" ") {
			about = append(about, l)
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("a line ends in a blank: %q", l)
		}
	}
	if len(about) != 1 || !strings.Contains(about[0], "is where the collection") {
		t.Errorf("what the check says of the sitemap: %q, want one line, where its collection is read from", about)
	}
	if len(rep.Collections) != 1 {
		t.Fatalf("collections %+v, want the sitemap's", rep.Collections)
	}
	fetched := false
	for _, f := range rep.Fetched {
		fetched = fetched || f.URL == sm && f.Status == 200
	}
	out := rep.Collections[0].Outcome
	if want := fmt.Sprintf("%d pages;", len(pages)); !strings.HasPrefix(out, want) || !fetched {
		t.Errorf("outcome %q (the sitemap in the documents fetched: %v), want it to start with %q, the pages the sitemap lists", out, fetched, want)
	}
	if strings.Contains(out, "0 documents") {
		t.Errorf("outcome %q counts no document above a list of those fetched", out)
	}
	for _, s := range append([]string{rep.Collections[0].Outcome}, rep.Warnings...) {
		if r, _ := utf8.DecodeRuneInString(s); unicode.IsLower(r) {
			t.Errorf("%q starts lower-case", s)
		}
	}
	for _, p := range rep.Problems {
		if r, _ := utf8.DecodeRuneInString(p.Problem); unicode.IsLower(r) || !strings.HasSuffix(p.Problem, ".") {
			t.Errorf("problem %q is no sentence of its own", p.Problem)
		}
	}
}
