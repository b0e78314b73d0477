package sitemap

import (
	"slices"
	"strings"
	"testing"
	"time"

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
	v, feed := followDatedShrine(t, e)

	// One deploy: ResourceSync, and an edit of /b/ it names.
	v["/b/"] = sitemapsite.Page{Title: "Atlas moth", Text: "The atlas moth is one of the largest moths in the world.", Lastmod: "2026-11-21T08:00:00Z"}
	e.Site.Version("", v)
	publishChangeList(e.Site, "2026-11-21T00:00:00Z",
		`<url><loc>{root}/b/</loc><rs:md change="updated" datetime="2026-11-21T08:00:00Z"/></url>`)
	e.Harvest()
	if got := harvesttest.ActiveSources(t, e.Store); !slices.Equal(got, []string{"resourcesync"}) {
		t.Fatalf("after the site published ResourceSync it is followed by %v", got)
	}
	news := feedNews(t, e, feed.ID)
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
