package sitemap

import (
	"slices"
	"testing"

	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// TestRenamedPageIsReported: a page renamed leaves the sitemap and its old
// address redirects to the new one: its followers learn that the old
// address was deleted and the new one created, as watched pages say.
func TestRenamedPageIsReported(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	e.Site.ETags(true)
	v1 := sitemapShrine()
	for p, page := range v1 {
		page.Lastmod = "2026-11-01T00:00:00Z"
		v1[p] = page
	}
	e.Site.Version("", v1)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	v2 := sitemapShrine()
	for p, page := range v2 {
		page.Lastmod = "2026-11-01T00:00:00Z"
		v2[p] = page
	}
	v2["/atlas/"] = sitemapsite.Page{Title: "Atlas moth", Text: v2["/b/"].Text, Lastmod: "2026-11-21T08:00:00Z"}
	v2["/b/"] = sitemapsite.Page{Redirect: e.Site.URL("/atlas/"), Unlisted: true}
	e.Site.Version("", v2)
	rep := e.Harvest()
	want := []string{"created /atlas/", "deleted /b/"}
	if got := e.Changes(); !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v; warnings %q", got, want, harvesttest.Warnings(rep))
	}
}
