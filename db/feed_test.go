package db

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestDigestsGroupChangesByRun(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	t0 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	first := storeRun(t, d, col, t0, "",
		Change{URL: "https://shrine.example/a", Kind: "created", Datetime: t0.Add(-time.Hour)},
		Change{URL: "https://shrine.example/b", Kind: "updated", Datetime: t0.Add(-time.Minute)})
	storeRun(t, d, col, t0.Add(time.Hour), "") // found nothing: no digest
	storeRun(t, d, col, t0.Add(2*time.Hour), "timed out")
	last := storeRun(t, d, col, t0.Add(3*time.Hour), "",
		Change{URL: "https://shrine.example/a", Kind: "deleted", Datetime: t0.Add(150 * time.Minute)})

	got, err := d.Digests(ctx, Scope{SiteID: col.SiteID}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Run.ID != last.ID || got[1].Run.ID != first.ID {
		t.Fatalf("digests %+v, want the two runs that found changes, newest first", got)
	}
	if got[1].CollectionTitle != "shrine" || got[1].CollectionKey != col.Key || !got[1].Run.FinishedAt.Equal(t0) || got[1].Run.Changes != 2 {
		t.Errorf("older digest %+v", got[1])
	}
	var urls []string
	for _, c := range got[1].Changes {
		if c.RunID != first.ID {
			t.Errorf("change %s of run %d in the digest of run %d", c.URL, c.RunID, first.ID)
		}
		urls = append(urls, c.URL)
	}
	if want := []string{"https://shrine.example/b", "https://shrine.example/a"}; !slices.Equal(urls, want) {
		t.Errorf("digest changes %q, want %q newest first", urls, want)
	}
	if one, _ := d.Digests(ctx, Scope{CollectionID: col.ID}, 1); len(one) != 1 || one[0].Run.ID != last.ID {
		t.Errorf("limit 1: %+v", one)
	}
	if none, err := d.Digests(ctx, Scope{SiteID: col.SiteID + 100}, 10); err != nil || len(none) != 0 {
		t.Errorf("digests of an unknown site: %+v, %v", none, err)
	}
}

func TestStampOfASite(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	other := testCollection(t, d, "gallery")
	scope := Scope{SiteID: col.SiteID}
	empty, err := d.Stamp(ctx, scope)
	if err != nil || empty.LastAdded != nil || empty.NextHarvest != nil {
		t.Fatalf("stamp before any harvest: %+v, %v", empty, err)
	}
	next := time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)
	if err := d.SetNextHarvest(ctx, col.SiteID, next); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	storeRun(t, d, col, at, "", Change{URL: "https://shrine.example/a", Kind: "updated", Datetime: at})
	s, err := d.Stamp(ctx, scope)
	if err != nil || s.NextHarvest == nil || !s.NextHarvest.Equal(next) || s.LastAdded == nil || !s.LastAdded.Equal(at) || s.Version == empty.Version {
		t.Fatalf("stamp after a harvest: %+v, %v", s, err)
	}
	storeRun(t, d, other, at.Add(time.Hour), "", Change{URL: "https://gallery.example/a", Kind: "updated", Datetime: at})
	if again, _ := d.Stamp(ctx, scope); again.Version != s.Version || !again.LastAdded.Equal(*s.LastAdded) || !again.NextHarvest.Equal(next) {
		t.Errorf("another site's harvest moved the stamp: %+v -> %+v", s, again)
	}
}

func TestExportChanges(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	shrine, gallery := testCollection(t, d, "shrine"), testCollection(t, d, "gallery")
	t0 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	storeRun(t, d, shrine, t0, "",
		Change{URL: "https://shrine.example/new", Kind: "created", Datetime: t0.Add(-time.Minute), Tags: []string{"art"}},
		Change{URL: "https://shrine.example/old", Kind: "updated", Datetime: t0.AddDate(-1, 0, 0), History: true})
	storeRun(t, d, gallery, t0, "", Change{URL: "https://gallery.example/x", Kind: "deleted", Datetime: t0.Add(-time.Hour)})

	export := func(f ExportFilter) ([]ExportedChange, error) {
		var out []ExportedChange
		err := d.ExportChanges(ctx, f, func(c ExportedChange) error {
			out = append(out, c)
			return nil
		})
		return out, err
	}
	tests := []struct {
		name   string
		filter ExportFilter
		want   []string
	}{
		{"everything, oldest first, history included", ExportFilter{},
			[]string{"https://shrine.example/old", "https://gallery.example/x", "https://shrine.example/new"}},
		{"one site", ExportFilter{SiteURL: gallery.SiteURL}, []string{"https://gallery.example/x"}},
		{"one collection", ExportFilter{CollectionID: shrine.ID}, []string{"https://shrine.example/old", "https://shrine.example/new"}},
		{"a site and a collection of another site", ExportFilter{SiteURL: gallery.SiteURL, CollectionID: shrine.ID}, nil},
		{"an unknown site", ExportFilter{SiteURL: "https://nowhere.example/"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := export(tt.filter)
			var urls []string
			for _, c := range got {
				urls = append(urls, c.URL)
			}
			if err != nil || !slices.Equal(urls, tt.want) {
				t.Errorf("exported %q, %v; want %q", urls, err, tt.want)
			}
		})
	}

	all, _ := export(ExportFilter{})
	old, gone, fresh := all[0], all[1], all[2]
	if !old.History || old.RunID != 0 || old.SiteURL != shrine.SiteURL || old.CollectionKey != shrine.Key {
		t.Errorf("history change %+v", old)
	}
	if fresh.History || fresh.RunID == 0 || !slices.Equal(fresh.Tags, []string{"art"}) || fresh.Kind != "created" {
		t.Errorf("feed change %+v", fresh)
	}
	if gone.Kind != "deleted" || gone.SiteURL != gallery.SiteURL || !gone.Datetime.Equal(t0.Add(-time.Hour)) {
		t.Errorf("deletion %+v", gone)
	}

	stop := errors.New("stop")
	calls := 0
	err := d.ExportChanges(ctx, ExportFilter{}, func(ExportedChange) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("an error from fn: %v after %d calls, want it returned after the first", err, calls)
	}
}

func TestRunsOfASite(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	other := testCollection(t, d, "gallery")
	t0 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	siteRun, err := d.SaveSiteHarvest(ctx, Run{SiteID: col.SiteID, StartedAt: t0, FinishedAt: t0.Add(time.Second), Documents: 1,
		Warnings: []string{"robots.txt answered 500", "no sitemap"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	colRun, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t0, FinishedAt: t0.Add(time.Minute),
			Documents: 3, NotModified: 2, LastmodOnly: 1, Error: "the change list at https://shrine.example/cl.xml returned 404"},
		Changes: []Change{{URL: "https://shrine.example/a", Kind: "updated", Datetime: t0, FromLastmod: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	storeRun(t, d, other, t0.Add(time.Hour), "")

	runs, err := d.Runs(ctx, col.SiteID, 10)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v, %v; want the site's two", runs, err)
	}
	got, site := runs[0], runs[1]
	if got.ID != colRun.ID || got.CollectionID != col.ID || got.Documents != 3 || got.NotModified != 2 || got.LastmodOnly != 1 ||
		got.Changes != 1 || got.Error != colRun.Error || got.Warnings != nil || !got.StartedAt.Equal(t0) {
		t.Errorf("collection run %+v", got)
	}
	if site.ID != siteRun.ID || site.CollectionID != 0 || !slices.Equal(site.Warnings, siteRun.Warnings) {
		t.Errorf("site run %+v", site)
	}
	if one, _ := d.Runs(ctx, col.SiteID, 1); len(one) != 1 || one[0].ID != colRun.ID {
		t.Errorf("limit 1: %+v", one)
	}
}
