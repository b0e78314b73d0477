package sitemap

import (
	"context"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// TestNewPageShowsItsText: a page added to a generated site, whose main
// text is one sentence, is shown by that sentence, not by the navigation
// every page of the site carries.
func TestNewPageShowsItsText(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	v := map[string]sitemapsite.Page{}
	for p, page := range sitemapShrine() {
		page.Text += "\nA longer paragraph about moths, their wings and their flight at night.\nAnd one more line of the page's own text."
		page.Lastmod = "2026-09-01T00:00:00Z"
		v[p] = page
	}
	e.Site.Version("", v)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	v["/f/"] = sitemapsite.Page{Title: "Moth facts", Text: "Moths outnumber butterflies ten to one.", Lastmod: "2026-11-21T08:00:00Z"}
	e.Site.Version("", v)
	e.Harvest()
	var created db.ExportedChange
	e.Store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		if c.Kind == "created" && strings.HasSuffix(c.URL, "/f/") {
			created = c
		}
		return nil
	})
	_, ins := changetest.Diff(t, created)
	if !slices.Contains(ins, "Moths outnumber butterflies ten to one.") {
		t.Errorf("the new page's opening lines %q lack its sentence", ins)
	}
	for _, l := range ins {
		if strings.EqualFold(strings.TrimSpace(l), "Luna moth") || strings.Contains(l, "©") {
			t.Errorf("the new page's opening lines %q show the site's navigation or footer", ins)
			break
		}
	}
}
