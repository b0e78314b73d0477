package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"tidings/internal/checksite"
)

// TestCheckPageOfAPlainSitemapSaysItOnce: the page says one thing of a
// plain sitemap (where the collection is read from, never "is a
// ResourceSync" and then "not a ResourceSync document"), counts the six
// pages the sitemap lists, and its headline is the all-clear's.
func TestCheckPageOfAPlainSitemapSaysItOnce(t *testing.T) {
	t.Parallel()
	docs := map[string]string{
		"/":           "<!doctype html><title>Fern Shrine</title><main><p>Welcome to the fern shrine.</p></main>",
		"/robots.txt": "User-agent: *\nAllow: /\nSitemap: {{base}}/sitemap.xml\n",
	}
	sitemap := `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`
	pages := []string{"/"}
	for i := 1; i <= 5; i++ {
		p := fmt.Sprintf("/fern-%d.html", i)
		pages = append(pages, p)
		docs[p] = fmt.Sprintf("<!doctype html><title>Fern %d</title><main><h1>Fern %d</h1><p>Notes on fern %d.</p></main>", i, i, i)
	}
	for i, p := range pages {
		sitemap += fmt.Sprintf("<url><loc>{{base}}%s</loc><lastmod>2026-0%d-1%dT00:00:00Z</lastmod></url>", p, i+1, i)
	}
	docs["/sitemap.xml"] = sitemap + "</urlset>"
	site := checksite.Serve(docs)
	t.Cleanup(site.Close)
	a := newUIApp(t, nil, Options{})
	rec := a.client(t, "192.0.2.40").get(checkPath(site.URL))
	body := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d\n%s", rec.Code, body)
	}
	for _, bad := range []string{"is a ResourceSync", "not a ResourceSync document", "0 documents read", "problem to fix"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page says %q", bad)
		}
	}
	for _, want := range []string{
		"is where the collection Fern Shrine is read from",
		fmt.Sprintf("%d pages;", len(pages)),
		"tidings can follow this site (1 collection), and found nothing to fix.",
	} {
		if strings.Count(body, want) != 1 {
			t.Errorf("the page says %q %d times, want once", want, strings.Count(body, want))
		}
	}
}
