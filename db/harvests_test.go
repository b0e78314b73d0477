package db

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestHarvestsGroupsARunWithItsCollections: one row per harvest, the
// site-level run first, a run that cut the harvest short in it too; the
// newest first, at most the number asked.
func TestHarvestsGroupsARunWithItsCollections(t *testing.T) {
	d, _ := openTest(t)
	ctx := context.Background()
	site, err := d.CreateSite(ctx, Site{URL: "https://ann.example/", InputURL: "https://ann.example/"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := d.SyncCollections(ctx, site.ID, []CollectionSpec{
		{Protocol: "resourcesync", Key: "https://ann.example/a/", SourceURL: "https://ann.example/a/caps.xml"},
		{Protocol: "resourcesync", Key: "https://ann.example/b/", SourceURL: "https://ann.example/b/caps.xml"},
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i := range 3 {
		at := start.Add(time.Duration(i) * 24 * time.Hour)
		if _, err := d.SaveSiteHarvest(ctx, Run{SiteID: site.ID, StartedAt: at, FinishedAt: at.Add(time.Second), Documents: 1}, nil); err != nil {
			t.Fatal(err)
		}
		for j, c := range cols {
			run := Run{SiteID: site.ID, CollectionID: c.ID, StartedAt: at.Add(2 * time.Second), FinishedAt: at.Add(3 * time.Second), Documents: 2, Changes: i + j}
			if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{Run: run}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The last harvest was cut short: its site-level run says so.
	last := start.Add(2 * 24 * time.Hour)
	if _, err := d.SaveSiteHarvest(ctx, Run{SiteID: site.ID, StartedAt: last, FinishedAt: last.Add(time.Minute), Error: "stopped"}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := d.Harvests(ctx, site.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, h := range got {
		s := ""
		for _, r := range h.Runs {
			s += fmt.Sprintf("%d/%s ", r.CollectionID, r.StartedAt.Format("02"))
		}
		shape = append(shape, s)
	}
	want := []string{
		fmt.Sprintf("0/03 %d/03 %d/03 0/03 ", cols[0].ID, cols[1].ID),
		fmt.Sprintf("0/02 %d/02 %d/02 ", cols[0].ID, cols[1].ID),
	}
	if fmt.Sprint(shape) != fmt.Sprint(want) {
		t.Errorf("harvests %q, want %q", shape, want)
	}
	if all, err := d.Harvests(ctx, site.ID, 20); err != nil || len(all) != 3 {
		t.Errorf("all harvests: %d, %v; want 3", len(all), err)
	}
}
