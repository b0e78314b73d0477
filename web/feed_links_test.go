package web

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/feeds"
)

var alternateTitle = regexp.MustCompile(`<link rel="alternate" type="[^"]+" title="([^"]*)" href="([^"]*)">`)

// TestFeedAddressesInEveryFormat: a site whose one collection bears the
// site's name. Its site and collection pages show the RSS and JSON Feed
// addresses beside the Atom one; no two feeds they advertise, nor the
// site's feed and the collection's, share a title in a reader's picker.
func TestFeedAddressesInEveryFormat(t *testing.T) {
	t.Parallel()
	store := openStore(t)
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://lantern.example/", InputURL: "https://lantern.example/", Title: "Lantern Garden"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "scp", Key: "https://lantern.example/", SourceURL: "https://lantern.example/site.scp", Title: "Lantern Garden"}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Truncate(time.Second)
	if _, err := store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
		Run: db.Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: at.Add(-time.Minute), FinishedAt: at},
	}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(store, Options{BaseURL: testBase})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	colFeed := testBase + feedbuild.CollectionFeedPath(cols[0])
	siteFeed := testBase + feedbuild.SiteFeedPath(site)

	pages := map[string][]string{
		"/" + collectionPath(cols[0]): {colFeed},
		"/" + sitePath(site):          {siteFeed},
	}
	for path, shown := range pages {
		body := serveAs(t, h, path, "").Body.String()
		main := body[strings.Index(body, "<main>"):]
		for _, atom := range shown {
			for _, f := range []feeds.Format{feeds.RSS, feeds.JSON} {
				u := feedbuild.InFormat(atom, f)
				if !strings.Contains(main, `<a href="`+u+`">`+u+`</a>`) {
					t.Errorf("%s does not show the %s address %s", path, f, u)
				}
			}
		}
		seen := map[string]string{}
		for _, m := range alternateTitle.FindAllStringSubmatch(body, -1) {
			if other, dup := seen[m[1]]; dup {
				t.Errorf("%s advertises %s and %s both as %q", path, other, m[2], m[1])
			}
			seen[m[1]] = m[2]
		}
		if len(seen) < 3 {
			t.Errorf("%s advertises %d feeds", path, len(seen))
		}
	}
	// The site page's collections offer their other formats too.
	body := serveAs(t, h, "/"+sitePath(site), "").Body.String()
	if !strings.Contains(body, `<a href="`+feedbuild.InFormat(colFeed, feeds.RSS)+`">RSS</a>`) || !strings.Contains(body, `<a href="`+feedbuild.InFormat(colFeed, feeds.JSON)+`">JSON Feed</a>`) {
		t.Errorf("the site page's collection lacks its RSS and JSON Feed addresses")
	}

	colTitle := anyFeed(t, h, strings.TrimPrefix(colFeed, strings.TrimSuffix(testBase, "/"))).Title
	siteTitle := anyFeed(t, h, strings.TrimPrefix(siteFeed, strings.TrimSuffix(testBase, "/"))).Title
	if colTitle != "Lantern Garden — changes" || siteTitle != "Lantern Garden (all collections) — changes" {
		t.Errorf("feed titles %q and %q", colTitle, siteTitle)
	}
}
