package web

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/follow"
)

// storingSite stores a site of one collection whose one snapshot holds
// size bytes, followed by the given people, and measures it.
func storingSite(t *testing.T, store *db.DB, root string, size int, followers ...db.User) db.Site {
	t.Helper()
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: root, InputURL: root})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "resourcesync", Key: root, SourceURL: root + "caps.xml"}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
		Run:       db.Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: now, FinishedAt: now},
		Snapshots: []db.Snapshot{{URL: root + "a", Text: make([]byte, size), FetchedAt: now}},
	}); err != nil {
		t.Fatal(err)
	}
	for _, u := range followers {
		if err := store.Follow(ctx, u.ID, site.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.MeasureSites(ctx, now); err != nil {
		t.Fatal(err)
	}
	return site
}

// TestAdminSeesWhatSitesStore: the admin page lists the sites by what
// they store, the most first, with their share and who follows them,
// and each person's sites and share beside their account.
func TestAdminSeesWhatSitesStore(t *testing.T) {
	store := openStore(t)
	a := newUIApp(t, store, Options{Follow: followWith(store, newGatedHarvester(), follow.Options{MaxStoredPerUser: 5 << 20})})
	admin := a.client(t, "192.0.2.1")
	admin.signUp("ann", goodPassword, "")
	ann := a.user(t, "ann")
	bob, err := store.CreateUser(t.Context(), "bob", "x", "bob-token", "")
	if err != nil {
		t.Fatal(err)
	}
	storingSite(t, store, "https://small.example/", 10_000, ann)
	storingSite(t, store, "https://big.example/", 300_000, ann, bob)
	storingSite(t, store, "https://alone.example/", 1_000)

	page := html.UnescapeString(admin.get("/admin").Body.String())
	storage := strings.Join(strings.Fields(page[strings.Index(page, "<h2>Storage</h2>"):]), " ")
	for _, want := range []string{
		"each person may follow 500 sites, ask for 6 harvests an hour and have their sites store 5.0 MB",
		"https://big.example/</a></td><td data-label=\"Stored\">293 KB",
		"96.4 %", "ann, bob", "nobody",
	} {
		if !strings.Contains(strings.ToLower(storage), strings.ToLower(want)) {
			t.Errorf("the storage section lacks %q:\n%s", want, storage)
		}
	}
	if big, small := strings.Index(storage, "big.example"), strings.Index(storage, "small.example"); big > small {
		t.Error("the sites are not listed the biggest first")
	}
	if !strings.Contains(page, `<td data-label="Name">bob</td><td data-label="Role">user</td>`) ||
		!strings.Contains(page, `<td data-label="Sites">1</td><td data-label="Stored">146 KB</td>`) {
		t.Errorf("bob's row does not show his one site and half of its bytes:\n%s", page[:strings.Index(page, "<h2>Invites</h2>")])
	}
}

// TestQuotasAreToldOnThePages: the add form and the site page say which
// quota a person reached and what to do, rather than failing.
func TestQuotasAreToldOnThePages(t *testing.T) {
	store := openStore(t)
	a := newUIApp(t, store, Options{Follow: followWith(store, newGatedHarvester(), follow.Options{MaxSitesPerUser: 1, HarvestsPerHour: 1})})
	c := a.client(t, "192.0.2.1")
	c.signUp("ann", goodPassword, "")
	site := storingSite(t, store, "https://mine.example/", 100, a.user(t, "ann"))

	c.get("/add")
	rec := c.post("/add", url.Values{"url": {"https://other.example/"}})
	if body := html.UnescapeString(rec.Body.String()); rec.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(body, "You follow 1 site; one person may follow at most 1 here. Unfollow a site you no longer read to follow another.") {
		t.Errorf("adding a site over the quota: %d\n%s", rec.Code, body)
	}

	path := "/" + sitePath(site)
	c.get(path)
	if got := location(t, c.post(path+"/harvest", nil)); got != testBase+sitePath(site)+"?harvest=started" {
		t.Fatalf("the first harvest asked for: %s", got)
	}
	a.settle(t)
	c.get(path)
	got := location(t, c.post(path+"/harvest", nil))
	if got != testBase+sitePath(site)+"?harvest=quota" {
		t.Fatalf("the second harvest within the hour: %s", got)
	}
	body := html.UnescapeString(c.get(strings.TrimPrefix(got, strings.TrimSuffix(testBase, "/"))).Body.String())
	if !strings.Contains(body, "You have asked for 1 harvest in the last hour, the most one person may here; you can ask again in 60 minutes.") {
		t.Errorf("the site page does not say why:\n%s", body)
	}
}
