package sitemap

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// TestEditShippedWithResourceSync: a sitemap site starts publishing
// ResourceSync and, in the same deploy, edits a page (its sitemap lastmod
// moves, its change list names the update). The feed its followers
// took before has the edit once, with what the text did.
func TestEditShippedWithResourceSync(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{}, func(o *harvest.Options) { o.DiscoveryInterval = time.Hour })
	e.Site.ETags(true)
	v := map[string]sitemapsite.Page{}
	for p, page := range sitemapShrine() {
		page.Lastmod = "2026-09-01T00:00:00Z"
		v[p] = page
	}
	e.Site.Version("", v)
	rep := harvesttest.Follow(t, e.H, e.Site.URL("/"))
	feed := rep.Collections[0].Collection

	// One deploy: ResourceSync, and an edit of /b/ it names.
	v["/b/"] = sitemapsite.Page{Title: "Atlas moth", Text: "The atlas moth is one of the largest moths in the world.", Lastmod: "2026-11-21T08:00:00Z"}
	e.Site.Version("", v)
	e.Site.Raw("/.well-known/resourcesync", `<urlset `+rsXMLNS+`><rs:md capability="description"/>
<url><loc>{root}/caps.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`)
	e.Site.Raw("/caps.xml", `<urlset `+rsXMLNS+`><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="{root}/"/>
<url><loc>{root}/changes.xml</loc><rs:md capability="changelist"/></url></urlset>`)
	e.Site.Raw("/changes.xml", `<urlset `+rsXMLNS+`><rs:md capability="changelist" from="2026-11-21T00:00:00Z"/>
<url><loc>{root}/b/</loc><rs:md change="updated" datetime="2026-11-21T08:00:00Z"/></url></urlset>`)
	e.Harvest()
	if got := harvesttest.ActiveSources(t, e.Store); !slices.Equal(got, []string{"resourcesync"}) {
		t.Fatalf("after the site published ResourceSync it is followed by %v", got)
	}
	var news []db.ExportedChange
	err := e.Store.ExportChanges(context.Background(), db.ExportFilter{CollectionID: feed.ID}, func(c db.ExportedChange) error {
		if !c.History {
			news = append(news, c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range news {
		got = append(got, c.Kind+" "+strings.TrimPrefix(c.URL, e.Site.Srv.URL))
	}
	if !slices.Equal(got, []string{"updated /b/"}) {
		t.Fatalf("the feed's changes %v, want the edit of /b/ once", got)
	}
	changetest.Text(t, news[0], "Atlas moth", "changed", []string{"The atlas moth is one of the largest moths."},
		[]string{"The atlas moth is one of the largest moths in the world."})
}
