package web

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"tidings/db"
)

// TestSiteHistoryIsOneRowPerHarvest: a harvest's site-level run and its
// collections' runs are one row: the documents and changes summed, each
// problem named by its collection.
func TestSiteHistoryIsOneRowPerHarvest(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{})
	ctx := t.Context()
	site, err := a.store.CreateSite(ctx, db.Site{URL: "https://ann.example/", InputURL: "https://ann.example/", Title: "Ann's Shrine"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := a.store.SyncCollections(ctx, site.ID, []db.CollectionSpec{
		{Protocol: "resourcesync", Key: "https://ann.example/cats/", SourceURL: "https://ann.example/cats/caps.xml", Title: "Cats"},
		{Protocol: "resourcesync", Key: "https://ann.example/dogs/", SourceURL: "https://ann.example/dogs/caps.xml", Title: "Dogs"},
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().Add(-50 * time.Hour).Truncate(time.Second)
	for day := range 2 {
		at := start.Add(time.Duration(day) * 24 * time.Hour)
		if _, err := a.store.SaveSiteHarvest(ctx, db.Run{SiteID: site.ID, StartedAt: at, FinishedAt: at.Add(time.Second), Documents: 1}, nil); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			run := db.Run{SiteID: site.ID, CollectionID: c.ID, StartedAt: at.Add(time.Second), FinishedAt: at.Add(2 * time.Second), Documents: 2, NotModified: 1}
			var changes []db.Change
			for n := range day + i {
				changes = append(changes, db.Change{URL: fmt.Sprintf("%sp%d.html", c.Key, n), Kind: "updated", Datetime: at})
			}
			if day == 1 && i == 1 {
				run.Error = "change list https://ann.example/dogs/changes.xml returned 500 Internal Server Error"
			}
			if _, err := a.store.SaveCollectionHarvest(ctx, db.CollectionHarvest{Run: run, Changes: changes}); err != nil {
				t.Fatal(err)
			}
		}
	}
	body := a.client(t, "192.0.2.40").get("/site/" + site.PublicID).Body.String()
	_, table, _ := strings.Cut(body, `<table class="runs stack">`)
	table, _, _ = strings.Cut(table, "</table>")
	rows := regexp.MustCompile(`(?s)<tr><td data-label="Finished">.*?</tr>`).FindAllString(table, -1)
	var got []string
	for _, r := range rows {
		got = append(got, text(r))
	}
	want := []string{
		"1 day ago 5 documents (2 unchanged) 3 new changes Dogs: change list https://ann.example/dogs/changes.xml returned 500 Internal Server Error",
		"2 days ago 5 documents (2 unchanged) 1 new change",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("harvest history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(table, "the site") || strings.Contains(table, `data-label="Of"`) {
		t.Errorf("the history still has a row or a column of its own for the site:\n%s", table)
	}
}
