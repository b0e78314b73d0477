package web

import (
	"fmt"
	"html"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feedbuild"
)

// TestPrunedToShareIsTold: a site whose oldest changes the sweep deleted
// to keep it within its share says so on its page, with up to when and
// what a reader can do; the admin's storage table says so beside it; its
// feed ends with the entry saying where its history ends. A site never
// pruned says nothing of it.
func TestPrunedToShareIsTold(t *testing.T) {
	store := openStore(t)
	a := newUIApp(t, store, Options{})
	admin := a.client(t, "192.0.2.1")
	admin.signUp("ann", goodPassword, "")
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://churn.example/", InputURL: "https://churn.example/", Title: "Churn"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "resourcesync", Key: site.URL, SourceURL: site.URL + "caps.xml", Title: "Pages"}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for n := range 5 {
		at := t0.Add(time.Duration(n) * 24 * time.Hour)
		h := db.CollectionHarvest{Run: db.Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: at, FinishedAt: at}}
		for k := range 10 {
			h.Changes = append(h.Changes, db.Change{URL: fmt.Sprintf("%sp%d", site.URL, k), Kind: "updated", Datetime: at,
				TextChange: db.TextChanged, Diff: fmt.Sprintf(`{"added":%q}`, strings.Repeat("new words ", 100))})
		}
		if _, err := store.SaveCollectionHarvest(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	calm := storingSite(t, store, "https://calm.example/", 100)
	now := t0.Add(5 * 24 * time.Hour)
	if _, err := store.MeasureSites(ctx, now); err != nil {
		t.Fatal(err)
	}
	if sp, err := store.PruneToShare(ctx, db.Share{Bytes: 30 << 10, Keep: 10}, now); err != nil || sp.Sites != 1 {
		t.Fatalf("pruned %+v, %v", sp, err)
	}

	page := html.UnescapeString(a.client(t, "192.0.2.2").get("/site/" + site.PublicID).Body.String())
	want := "This site changes so much that it stored more than the 30 KB each site may keep here, so on 6 Mar 2026 its changes up to 3 Mar 2026 09:00 UTC were deleted, " +
		"the oldest first; its newest changes are kept, and its feeds say where their history now ends. " +
		"To keep every change, subscribe to a feed below: your feed reader keeps what it has read."
	if !strings.Contains(strings.Join(strings.Fields(page), " "), want) {
		t.Errorf("the site page does not say its older changes were pruned:\n%s", page)
	}
	if calmPage := a.client(t, "192.0.2.2").get("/site/" + calm.PublicID).Body.String(); strings.Contains(calmPage, `id="pruned"`) {
		t.Error("a site never pruned says it was")
	}

	adminPage := html.UnescapeString(admin.get("/admin").Body.String())
	storage := strings.Join(strings.Fields(adminPage[strings.Index(adminPage, "<h2>Storage</h2>"):]), " ")
	row, _, _ := strings.Cut(storage[strings.Index(storage, "https://churn.example/</a>"):], "</tr>")
	if !strings.Contains(row, "Past its share of 30 KB: on 6 Mar 2026 its changes up to 3 Mar 2026 were deleted, the oldest first. Raise --site-share to keep more of such sites.") {
		t.Errorf("the admin's storage row of the site does not say it was pruned:\n%s", row)
	}
	if calmRow, _, _ := strings.Cut(storage[strings.Index(storage, "https://calm.example/</a>"):], "</tr>"); strings.Contains(calmRow, "Past its share") {
		t.Errorf("the calm site's row says it was pruned:\n%s", calmRow)
	}

	feed := a.client(t, "192.0.2.3").get("/" + feedbuild.SiteFeedPath(site)).Body.String()
	if !strings.Contains(feed, "Older changes of Pages are not kept") || !strings.Contains(feed, "2026-03-03T09:00:00Z") {
		t.Errorf("the feed does not say where its history ends:\n%s", feed)
	}
}
