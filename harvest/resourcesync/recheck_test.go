package resourcesync_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/harvesttest"
)

func TestMovedSourceDescriptionIsFoundAgain(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	// robots.txt names where the Source Description Index will be; it is
	// trusted for a day, as crawlers may.
	e.Site.Set("/robots.txt", "User-agent: *\nSitemap: {{.Base}}/rs/index.xml\n")
	e.Follow()
	site, _ := e.Store.SiteByURL(context.Background(), e.Site.URL+"/")
	e.Site.Set("/rs/index.xml", e.Site.Get("/.well-known/resourcesync"))
	e.Site.Remove("/.well-known/resourcesync")
	h := harvest.New(fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true}), e.Store, harvest.Options{})
	rep := harvesttest.HarvestSite(t, e.Store, h, site.URL)
	if rep.Run.Error != "" || len(rep.Collections) != 2 {
		t.Fatalf("harvest after the move: error %q, %d collections", rep.Run.Error, len(rep.Collections))
	}
	moved, _ := e.Store.SiteByURL(context.Background(), site.URL)
	if moved.SourceURL != e.Site.URL+"/rs/index.xml" {
		t.Errorf("source after the move: %s", moved.SourceURL)
	}
	cols, _ := e.Store.Collections(context.Background(), db.CollectionFilter{SiteID: site.ID, ActiveOnly: true})
	if len(cols) != 2 {
		t.Errorf("%d active collections after the move, want 2", len(cols))
	}
}

// TestSourceDescriptionOutageKeepsItsAddress: a discovery that cannot
// read the Source Description (a 503) but finds another source's
// collections keeps where the Source Description is: the next harvest
// looks for it there.
func TestSourceDescriptionOutageKeepsItsAddress(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Follow()
	want := e.Site.URL + "/.well-known/resourcesync"
	e.Site.Set("/.well-known/arc-sitemap.json", `{"arc_sitemap_version": "2.1", "site": "{{.Base}}", "generated_at": "2026-03-10T06:00:00Z",
"pages": [{"url": "{{.Base}}/shrine/index.html", "ai_indexable": true}]}`)
	e.Site.Fail("/.well-known/resourcesync", http.StatusServiceUnavailable)
	// Followed again, the site is looked at everywhere.
	rep, err := e.H.Follow(context.Background(), e.Site.URL)
	if !errors.Is(err, db.ErrAlreadyExists) || rep.Run.Error != "" {
		t.Fatalf("follow during the outage: %v, site run error %q", err, rep.Run.Error)
	}
	site, err := e.Store.SiteByID(context.Background(), rep.Site.ID)
	if err != nil || site.SourceURL != want {
		t.Errorf("during the outage the site's change information is at %q (%v), want %s", site.SourceURL, err, want)
	}
	e.Site.Fail("/.well-known/resourcesync", 0)
	rep = e.Harvest()
	if n := e.Site.Requests("/.well-known/resourcesync"); rep.Run.Error != "" || n < 3 {
		t.Errorf("after the outage: error %q, the Source Description read %d times", rep.Run.Error, n)
	}
}
