package sitemap

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// TestAReleaseBumpsEveryPage: a documentation site of 200 pages whose
// every page names the release ("Moth docs 1.2"), and whose sitemap
// dates move for every page when a release is built. A release that only
// bumps the number and edits three pages gives those three updates, each
// with its own sentence and not the release line, however many harvests
// the page budget needs to read every page.
func TestAReleaseBumpsEveryPage(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	e.Site.ETags(true)
	edited := map[int]bool{17: true, 99: true, 180: true}
	version := func(release, day string, edit bool) map[string]sitemapsite.Page {
		v := map[string]sitemapsite.Page{}
		for i := range 200 {
			text := fmt.Sprintf("Moth docs %s\nPage %d explains option %d of the moth trap.", release, i, i)
			if edit && edited[i] {
				text += "\nThe option now also counts beetles."
			}
			v[fmt.Sprintf("/docs/p%d/", i)] = sitemapsite.Page{Title: fmt.Sprintf("Option %d", i), Text: text, Lastmod: day}
		}
		return v
	}
	e.Site.Version("", version("1.2", "2026-11-01T00:00:00Z", false))
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	// The follow read the first 100 pages, this harvest the rest (the
	// page budget): every page has its text to compare with.
	e.Harvest()
	e.Site.Version("", version("1.3", "2026-11-24T00:00:00Z", true))
	var warnings [][]string
	for range 3 {
		warnings = append(warnings, harvesttest.Warnings(e.Harvest()))
	}
	var want []string
	for i := range edited {
		want = append(want, fmt.Sprintf("updated /docs/p%d/", i))
	}
	slices.Sort(want)
	got := e.Changes()
	if !slices.Equal(got, want) {
		t.Fatalf("changes %v, want the three edited pages' updates only; warnings by harvest %q", got, warnings)
	}
	var all []db.ExportedChange
	e.Store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		all = append(all, c)
		return nil
	})
	c := harvesttest.FindChange(all, e.Site.URL("/docs/p99/"), "updated")
	if c == nil {
		t.Fatal("no update of /docs/p99/ exported")
	}
	changetest.Text(t, *c, "Option 99", db.TextChanged, nil, []string{"The option now also counts beetles."})
}
