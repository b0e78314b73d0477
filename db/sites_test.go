package db

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestSiteDetailsAndDueSites(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	var ids []int64
	for _, u := range []string{"https://a.example/", "https://b.example/", "https://c.example/", "https://d.example/"} {
		s, err := d.CreateSite(ctx, Site{URL: u, InputURL: u + "typed", Title: "T"})
		if err != nil {
			t.Fatal(err)
		}
		if s.URL != u || s.InputURL != u+"typed" || s.Title != "T" || s.CreatedAt.IsZero() || s.LastHarvestAt != nil || s.Failures != 0 {
			t.Errorf("new site %+v", s)
		}
		ids = append(ids, s.ID)
	}
	// a: never harvested; b: due a minute ago; c: due exactly now; d: due tomorrow.
	for i, next := range map[int]time.Time{1: now.Add(-time.Minute), 2: now, 3: now.AddDate(0, 0, 1)} {
		if err := d.SetNextHarvest(ctx, ids[i], next); err != nil {
			t.Fatal(err)
		}
	}
	due, err := d.DueSites(ctx, now)
	if want := []string{"https://a.example/", "https://b.example/", "https://c.example/"}; err != nil || !slices.Equal(siteURLs(due), want) {
		t.Errorf("due sites %q, %v; want %q", siteURLs(due), err, want)
	}

	if err := d.UpdateSiteSource(ctx, ids[0], "https://a.example/.well-known/resourcesync", "Site A"); err != nil {
		t.Fatal(err)
	}
	if err := d.SetDiscovered(ctx, ids[0], now); err != nil {
		t.Fatal(err)
	}
	a, err := d.SiteByURL(ctx, "https://a.example/")
	if err != nil || a.ID != ids[0] || a.SourceURL != "https://a.example/.well-known/resourcesync" || a.Title != "Site A" ||
		a.DiscoveredAt == nil || !a.DiscoveredAt.Equal(now) {
		t.Errorf("site after UpdateSiteSource and SetDiscovered: %+v, %v", a, err)
	}
	if b, _ := d.SiteByID(ctx, ids[1]); b.SourceURL != "" || b.Title != "T" || b.DiscoveredAt != nil {
		t.Errorf("another site changed with it: %+v", b)
	}
	if _, err := d.SiteByURL(ctx, "https://e.example/"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown URL: %v, want ErrNotFound", err)
	}
	all, err := d.Sites(ctx)
	if err != nil || len(all) != 4 || all[0].ID != ids[0] || all[3].ID != ids[3] {
		t.Errorf("sites %+v, %v; want four, oldest first", all, err)
	}
}

func TestSyncCollectionsKeepsWhatSitesDrop(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	site, _ := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	other := testCollection(t, d, "gallery")
	blog := CollectionSpec{Protocol: "scp", Key: "blog", SourceURL: "https://example.org/blog.scp", Title: "Blog"}
	docs := CollectionSpec{Protocol: "resourcesync", Key: "https://example.org/docs/", SourceURL: "https://example.org/caps.xml", Title: "Docs"}
	// The same key under another protocol is another collection.
	docsARC := CollectionSpec{Protocol: "arc", Key: "https://example.org/docs/", SourceURL: "https://example.org/arc.json"}

	cols, err := d.SyncCollections(ctx, site.ID, []CollectionSpec{blog, docs, docsARC})
	if err != nil || len(cols) != 3 {
		t.Fatalf("first sync: %+v, %v", cols, err)
	}
	for _, c := range cols {
		if !c.Active || c.SiteID != site.ID || c.SiteURL != site.URL || c.CreatedAt.IsZero() {
			t.Errorf("collection %+v", c)
		}
	}
	blogID, docsID := cols[0].ID, cols[1].ID
	storeRun(t, d, cols[0], time.Now(), "", Change{URL: "https://example.org/blog/1", Kind: "created", Datetime: time.Now()})

	// The site stops listing the blog, moves its docs and drops their title.
	moved := docs
	moved.SourceURL, moved.Title = "https://example.org/caps2.xml", ""
	cols, err = d.SyncCollections(ctx, site.ID, []CollectionSpec{moved, docsARC})
	if err != nil || len(cols) != 2 || cols[0].ID != docsID {
		t.Fatalf("second sync: %+v, %v", cols, err)
	}
	if cols[0].SourceURL != moved.SourceURL || cols[0].Title != "Docs" {
		t.Errorf("moved collection %+v, want the new source and the old title", cols[0])
	}
	gone, err := d.CollectionByID(ctx, blogID)
	if err != nil || gone.Active || gone.Changes != 1 {
		t.Errorf("dropped collection %+v, %v; want it inactive with its change", gone, err)
	}
	everything, _ := d.Collections(ctx, CollectionFilter{SiteID: site.ID})
	if len(everything) != 3 {
		t.Errorf("all collections of the site: %d, want 3", len(everything))
	}
	active, _ := d.Collections(ctx, CollectionFilter{ActiveOnly: true})
	if len(active) != 3 || active[0].ID != docsID || active[2].ID != other.ID {
		t.Errorf("active collections of every site: %+v, want the two of example.org then gallery's, by site", active)
	}

	// Listed again, it comes back with its changes, renamed.
	blog.Title = "Weblog"
	cols, _ = d.SyncCollections(ctx, site.ID, []CollectionSpec{blog, moved, docsARC})
	if len(cols) != 3 || cols[0].ID != blogID || !cols[0].Active || cols[0].Title != "Weblog" || cols[0].Changes != 1 {
		t.Errorf("relisted collections %+v", cols)
	}
	if none, err := d.SyncCollections(ctx, site.ID, nil); err != nil || len(none) != 0 {
		t.Errorf("a site that lists nothing: %+v, %v", none, err)
	}
	if got, _ := d.Collections(ctx, CollectionFilter{SiteID: other.SiteID, ActiveOnly: true}); len(got) != 1 {
		t.Errorf("syncing one site deactivated another's collections: %+v", got)
	}
	if _, err := d.SyncCollections(ctx, 999, []CollectionSpec{blog}); err == nil {
		t.Error("collections of a site that does not exist were stored")
	}
	if _, err := d.CollectionByID(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown collection: %v, want ErrNotFound", err)
	}
}
