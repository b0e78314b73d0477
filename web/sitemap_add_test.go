package web

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"tidings/db"
	"tidings/internal/sitemapsite"
)

// TestAddPlainSitemapSite: the form follows a site that publishes only a
// sitemap, and the site and collection pages say how it is followed.
func TestAddPlainSitemapSite(t *testing.T) {
	t.Parallel()
	site := sitemapsite.New()
	t.Cleanup(site.Close)
	site.Version("2026-11-20T09:00:00Z", map[string]sitemapsite.Page{
		"/shrine/":      {Title: "Moth Shrine", Text: "Welcome."},
		"/shrine/luna/": {Title: "Luna moth", Text: "Pale green."},
	})
	site.Sitemap("/shrine/sitemap.xml", false)
	a := newUIApp(t, nil, Options{})
	c := a.signedIn(t, signIn(t, a.store, "ann"))
	c.get("/add")
	id := discoveryID(t, location(t, c.post("/add", url.Values{"url": {site.URL("/shrine/")}})))
	if x := a.waitDiscovery(t, id); x.Status != db.DiscoveryFollowed || x.SiteID == 0 {
		t.Fatalf("discovery ended %s: %s", x.Status, x.Message)
	}
	body := c.get("/discoveries/" + strconv.FormatInt(id, 10)).Body.String()
	if !strings.Contains(body, "Followed: found 1 collection.") {
		t.Errorf("discovery page:\n%s", body)
	}
	const how = "sitemap: follows the sitemap, confirmed by reading pages"
	for _, page := range []string{"/site/1", "/collection/1"} {
		if body := c.get(page).Body.String(); !strings.Contains(body, how) {
			t.Errorf("%s lacks %q:\n%s", page, how, body)
		}
	}
}
