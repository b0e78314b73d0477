package db

import (
	"context"
	"testing"
	"time"
)

// TestWatchedPages: the pages a harvest read are stored with it, the
// longest unread first; a page read again keeps its least depth and
// stays added by hand; a page gone stops being watched; and the
// collection says how many it watches. The schema carries the step.
func TestWatchedPages(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	if v := schemaVersion(t, d); v != SchemaVersion {
		t.Fatalf("schema version %d; want %d", v, SchemaVersion)
	}
	col := testCollection(t, d, "shrine")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	save := func(at time.Time, watched []WatchedPage, gone ...string) {
		t.Helper()
		_, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
			Run:     Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at, FinishedAt: at},
			Watched: watched, Gone: gone,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	save(t0, []WatchedPage{
		{URL: "https://shrine.example/", CheckedAt: t0},
		{URL: "https://shrine.example/a", Depth: 2, CheckedAt: t0.Add(time.Minute)},
		{URL: "https://shrine.example/b", Depth: 1, CheckedAt: t0, ByHand: true},
	})
	save(t0.Add(time.Hour), []WatchedPage{
		{URL: "https://shrine.example/", Depth: 0, CheckedAt: t0.Add(time.Hour)},
		{URL: "https://shrine.example/a", Depth: 1, CheckedAt: t0.Add(time.Hour)},
		{URL: "https://shrine.example/b", Depth: 3, CheckedAt: t0.Add(2 * time.Minute)},
	}, "https://shrine.example/gone")
	list, err := d.WatchedPages(ctx, col.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []WatchedPage{
		{URL: "https://shrine.example/b", Depth: 1, CheckedAt: t0.Add(2 * time.Minute), ByHand: true},
		{URL: "https://shrine.example/", Depth: 0, CheckedAt: t0.Add(time.Hour)},
		{URL: "https://shrine.example/a", Depth: 1, CheckedAt: t0.Add(time.Hour)},
	}
	if len(list) != len(want) {
		t.Fatalf("watched %+v, want %+v", list, want)
	}
	for i := range want {
		if list[i].URL != want[i].URL || list[i].Depth != want[i].Depth || !list[i].CheckedAt.Equal(want[i].CheckedAt) || list[i].ByHand != want[i].ByHand {
			t.Errorf("watched[%d] = %+v, want %+v", i, list[i], want[i])
		}
	}
	save(t0.Add(2*time.Hour), nil, "https://shrine.example/a")
	if got, err := d.CollectionByID(ctx, col.ID); err != nil || got.Watched != 2 {
		t.Errorf("collection watches %d pages, %v; want 2", got.Watched, err)
	}
}
