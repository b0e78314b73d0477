package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"tidings/db"
)

// TestAddWatchedPage: on a site whose pages tidings watches, adding the
// address of a page no link reaches fetches it and watches it; adding it
// again, or the site, only says it is followed already. The site's page
// says how many pages are watched.
func TestAddWatchedPage(t *testing.T) {
	t.Parallel()
	pages := map[string]string{
		"/":            `<html><head><title>Shrine</title></head><body><a href="/cats.html">cats</a></body></html>`,
		"/cats.html":   `<html><head><title>Cats</title></head><body><p>Tabby.</p></body></html>`,
		"/hidden.html": `<html><head><title>Hidden</title></head><body><p>No link leads here.</p></body></html>`,
		"/other.html":  `<html><head><title>Other</title></head><body><p>Nor here.</p></body></html>`,
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(body))
	}))
	t.Cleanup(site.Close)
	a := newUIApp(t, nil, Options{})
	c := a.signedIn(t, signIn(t, a.store, "ann"))
	c.get("/add")
	id := discoveryID(t, location(t, c.post("/add", url.Values{"url": {site.URL + "/"}})))
	if x := a.waitDiscovery(t, id); x.Status != db.DiscoveryFollowed {
		t.Fatalf("discovery ended %s: %s", x.Status, x.Message)
	}
	if body := c.get(sitePathOf(t, a.store, 1)).Body.String(); !strings.Contains(body, "watches 2 of its pages") {
		t.Errorf("the site page does not say how many pages are watched:\n%s", body)
	}

	c.get("/add")
	id = discoveryID(t, location(t, c.post("/add", url.Values{"url": {site.URL + "/hidden.html"}})))
	if x := a.waitDiscovery(t, id); x.Status != db.DiscoveryFollowed || x.SiteID != 1 {
		t.Fatalf("discovery ended %s (site %d): %s", x.Status, x.SiteID, x.Message)
	}
	a.settle(t)
	if body := c.get(sitePathOf(t, a.store, 1)).Body.String(); !strings.Contains(body, "watches 3 of its pages") {
		t.Errorf("the page added is not watched:\n%s", body)
	}
	for _, again := range []string{site.URL + "/hidden.html", site.URL + "/"} {
		if got, want := addError(t, a, c, again), "You already follow "+site.URL+"/."; got != want {
			t.Errorf("add %q again: %q, want %q", again, got, want)
		}
	}
	// Adding a page harvests the site: as often as "Harvest now" may.
	if got := addError(t, a, c, site.URL+"/other.html"); !strings.Contains(got, "it was read on request moments ago; add it again in 5 minute(s)") {
		t.Errorf("a second page at once: %q", got)
	}
}
