package db

import (
	"context"
	"testing"
)

// TestImportKeepsTheReadersTitles: a site followed through an OPML import
// keeps the name the file gave it, for that user alone; a later import
// does not rename it, and a follow without a name leaves none.
func TestImportKeepsTheReadersTitles(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	site, err := d.CreateSite(ctx, Site{URL: "https://shrine.example/", InputURL: "https://shrine.example/"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := d.CreateSite(ctx, Site{URL: "https://other.example/", InputURL: "https://other.example/"})
	if err != nil {
		t.Fatal(err)
	}
	finish := func(u User, title string, siteID int64) {
		t.Helper()
		im, err := d.CreateImportTitled(ctx, u.ID, []ImportSite{{URL: "https://shrine.example/feed.xml", Title: title}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		xs, err := d.Discoveries(ctx, u.ID, im.ID, 10)
		if err != nil || len(xs) != 1 || xs[0].Title != title {
			t.Fatalf("discoveries %+v, %v", xs, err)
		}
		if err := d.FinishDiscovery(ctx, xs[0].ID, DiscoveryFollowed, siteID, ""); err != nil {
			t.Fatal(err)
		}
	}
	finish(ann, "My Shrine", site.ID)
	finish(ann, "Renamed later", site.ID)
	finish(bob, "", site.ID)
	if err := d.Follow(ctx, ann.ID, other.ID); err != nil {
		t.Fatal(err)
	}
	got, err := d.FollowTitles(ctx, ann.ID)
	if err != nil || len(got) != 1 || got[site.ID] != "My Shrine" {
		t.Errorf("ann's titles %v, %v; want the first import's for the shrine alone", got, err)
	}
	if got, err := d.FollowTitles(ctx, bob.ID); err != nil || len(got) != 0 {
		t.Errorf("bob's titles %v, %v; want none", got, err)
	}
}
