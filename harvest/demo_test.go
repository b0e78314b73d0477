package harvest_test

import (
	"context"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	_ "tidings/harvest/sources"
	"tidings/internal/demosite"
	"tidings/internal/harvesttest"
)

// TestDemoSitesGiveTheirEditsAndNothingElse: the three sample sites, each
// followed by its own source (ResourceSync, a plain sitemap, watched
// pages), have two pages edited in each of four rounds, a harvest after
// each. Every harvest gives exactly the edited pages, each saying what its
// text gained and lost, and no entry for a page not edited: the watched
// site's home page lists the titles the edits changed, which is not news
// of the home page.
func TestDemoSitesGiveTheirEditsAndNothingElse(t *testing.T) {
	ctx := context.Background()
	sites, err := demosite.Start(time.Now().UTC())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sites.Close)
	store, h := harvesttest.New(t, harvest.Options{})
	for _, s := range sites.All {
		harvesttest.Follow(t, h, s.URL+"/")
	}
	known := map[int64]bool{}
	newChanges := func(root string) []db.ExportedChange {
		var out []db.ExportedChange
		err := store.ExportChanges(ctx, db.ExportFilter{SiteURL: root}, func(c db.ExportedChange) error {
			if !known[c.ID] {
				known[c.ID] = true
				out = append(out, c)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, s := range sites.All {
		newChanges(s.URL + "/")
	}

	var entries, edits, found int
	for round := range 4 {
		// A second apart: the sample sites date their edits to the second.
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
		for _, s := range sites.All {
			edited := map[string]bool{}
			for _, u := range s.Change(2, time.Now()) {
				edited[u] = true
			}
			edits += len(edited)
			rep := harvesttest.HarvestSite(t, store, h, s.URL+"/")
			got := map[string]bool{}
			for _, c := range newChanges(s.URL + "/") {
				entries++
				switch {
				case !edited[c.URL]:
					t.Errorf("%s, round %d: %s %s, a page not edited", s.Name, round+1, c.Kind, c.URL)
				case got[c.URL]:
					t.Errorf("%s, round %d: %s %s again", s.Name, round+1, c.Kind, c.URL)
				case c.Kind != "updated" || c.TextChange != db.TextChanged || c.Diff == "":
					t.Errorf("%s, round %d: %s %s, text %q, diff %q; want updated, with what changed", s.Name, round+1, c.Kind, c.URL, c.TextChange, c.Diff)
				}
				got[c.URL] = true
			}
			for u := range edited {
				if got[u] {
					found++
				} else {
					t.Errorf("%s, round %d: the edit of %s not found; warnings %q", s.Name, round+1, u, harvesttest.Warnings(rep))
				}
			}
		}
	}
	t.Logf("%d pages edited, %d found; %d entries, %d on pages not edited", edits, found, entries, entries-found)
}
