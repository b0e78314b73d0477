package sitemap

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// TestFeedOutlivesASourceSwitch: a site followed by its sitemap begins to
// publish ResourceSync, then stops. The feed its followers subscribed to
// before the switch goes on through both switches, and carries every
// change exactly once: the sitemap's edit, the change list's, and the
// edit after ResourceSync went away.
func TestFeedOutlivesASourceSwitch(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{}, func(o *harvest.Options) { o.DiscoveryInterval = time.Hour })
	v, feed := followDatedShrine(t, e)

	// While the sitemap feeds it: an edit of /a/.
	v["/a/"] = sitemapsite.Page{Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about ten days.", Lastmod: "2026-11-21T08:00:00Z"}
	e.Site.Version("", v)
	e.Harvest()

	// The site publishes ResourceSync, whose change list names an edit
	// of /b/ made after the sitemap's last harvest.
	publishChangeList(e.Site, "2026-09-01T00:00:00Z",
		`<url><loc>{root}/a/</loc><rs:md change="updated" datetime="2026-11-21T08:00:00Z"/></url>`,
		`<url><loc>{root}/b/</loc><rs:md change="updated" datetime="2026-11-22T08:00:00Z"/></url>`)
	e.Harvest()
	if got := harvesttest.ActiveSources(t, e.Store); !slices.Equal(got, []string{"resourcesync"}) {
		t.Fatalf("after the site published ResourceSync it is followed by %v", got)
	}

	// ResourceSync goes away; the sitemap names an edit of /c/.
	for _, p := range []string{"/.well-known/resourcesync", "/caps.xml", "/changes.xml"} {
		e.Site.Raw(p, "")
	}
	v["/c/"] = sitemapsite.Page{Title: "Links", Text: "Other moth shrines I like, and one more.", Lastmod: "2026-11-23T08:00:00Z"}
	e.Site.Version("", v)
	e.Harvest()
	if got := harvesttest.ActiveSources(t, e.Store); !slices.Equal(got, []string{Name}) {
		t.Fatalf("after ResourceSync went away the site is followed by %v", got)
	}

	cols, err := e.Store.Collections(context.Background(), db.CollectionFilter{})
	if err != nil || len(cols) != 1 || cols[0].ID != feed.ID || cols[0].PublicID != feed.PublicID {
		t.Fatalf("collections %+v, %v; want the one the followers subscribed to", cols, err)
	}
	var news []string
	for _, c := range feedNews(t, e, feed.ID) {
		news = append(news, c.Kind+" "+strings.TrimPrefix(c.URL, e.Site.Srv.URL))
	}
	slices.Sort(news)
	if want := []string{"updated /a/", "updated /b/", "updated /c/"}; !slices.Equal(news, want) {
		t.Errorf("the feed's changes %v, want %v, each once", news, want)
	}
}

// followDatedShrine serves the shrine, every page's lastmod 2026-09-01,
// with ETags, follows it, and returns its pages and its collection.
func followDatedShrine(t *testing.T, e *harvesttest.ListEnv) (map[string]sitemapsite.Page, db.Collection) {
	t.Helper()
	e.Site.ETags(true)
	v := map[string]sitemapsite.Page{}
	for p, page := range sitemapShrine() {
		page.Lastmod = "2026-09-01T00:00:00Z"
		v[p] = page
	}
	e.Site.Version("", v)
	rep := harvesttest.Follow(t, e.H, e.Site.URL("/"))
	return v, rep.Collections[0].Collection
}

// publishChangeList makes the site publish ResourceSync: a Source
// Description, its capability list, and a change list from from holding
// entries.
func publishChangeList(s *sitemapsite.Site, from string, entries ...string) {
	s.Raw("/.well-known/resourcesync", `<urlset `+rsXMLNS+`><rs:md capability="description"/>
<url><loc>{root}/caps.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`)
	s.Raw("/caps.xml", `<urlset `+rsXMLNS+`><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="{root}/"/>
<url><loc>{root}/changes.xml</loc><rs:md capability="changelist"/></url></urlset>`)
	s.Raw("/changes.xml", `<urlset `+rsXMLNS+`><rs:md capability="changelist" from="`+from+`"/>
`+strings.Join(entries, "\n")+`</urlset>`)
}

// feedNews returns the changes of a collection's feed, history left out.
func feedNews(t *testing.T, e *harvesttest.ListEnv, collectionID int64) []db.ExportedChange {
	t.Helper()
	var news []db.ExportedChange
	err := e.Store.ExportChanges(context.Background(), db.ExportFilter{CollectionID: collectionID}, func(c db.ExportedChange) error {
		if !c.History {
			news = append(news, c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return news
}
