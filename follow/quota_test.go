package follow

import (
	"errors"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/opml"
)

// quotaOf returns err's *QuotaError, failing the test when it has none of
// kind.
func quotaOf(t *testing.T, err error, kind string) *QuotaError {
	t.Helper()
	var q *QuotaError
	if !errors.As(err, &q) || q.Kind != kind {
		t.Fatalf("err = %v, want a %s quota error", err, kind)
	}
	return q
}

// TestSitesQuota: a person follows at most MaxSitesPerUser sites, those
// waiting to be discovered counted; following one they follow already is
// no new site; unfollowing makes room; others have their own.
func TestSitesQuota(t *testing.T) {
	store := openStore(t)
	f := newFake(store)
	f.gate = make(chan struct{})
	s := New(store, f, Options{MaxSitesPerUser: 2})
	s.Start(t.Context())
	ann, bob := user(t, store, "ann"), user(t, store, "bob")
	for _, u := range []string{"https://a.example/", "https://b.example/"} {
		if _, err := s.Add(t.Context(), ann.ID, u); err != nil {
			t.Fatal(err)
		}
	}
	q := quotaOf(t, func() error { _, err := s.Add(t.Context(), ann.ID, "https://c.example/"); return err }(), QuotaSites)
	if want := "You follow 0 sites and 2 more wait to be looked at; one person may follow at most 2 here. Unfollow a site you no longer read to follow another."; q.Message() != want {
		t.Errorf("message %q, want %q", q.Message(), want)
	}
	close(f.gate)
	s.Wait()
	known, err := store.CreateSite(t.Context(), db.Site{URL: "https://known.example/"})
	if err != nil {
		t.Fatal(err)
	}
	q = quotaOf(t, func() error { _, err := s.Add(t.Context(), ann.ID, known.URL); return err }(), QuotaSites)
	if !strings.HasPrefix(q.Message(), "You follow 2 sites; one person may follow at most 2 here.") {
		t.Errorf("message %q", q.Message())
	}
	if _, err := s.Add(t.Context(), ann.ID, "https://a.example/page"); !errors.Is(err, ErrAlreadyFollowed) {
		t.Errorf("a site followed already: %v, want ErrAlreadyFollowed", err)
	}
	if _, err := s.Add(t.Context(), bob.ID, known.URL); err != nil {
		t.Errorf("bob has a quota of his own: %v", err)
	}
	a, err := store.SiteByURL(t.Context(), "https://a.example/")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Unfollow(t.Context(), ann.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(t.Context(), ann.ID, known.URL); err != nil {
		t.Errorf("after unfollowing one: %v", err)
	}
	if n, _ := store.FollowedSites(t.Context(), ann.ID); len(n) != 2 {
		t.Errorf("ann follows %d sites, want 2", len(n))
	}
}

// TestImportWithinTheSitesQuota: an import queues what the quota leaves
// room for and says why the rest was not followed.
func TestImportWithinTheSitesQuota(t *testing.T) {
	store := openStore(t)
	s := New(store, newFake(store), Options{MaxSitesPerUser: 3})
	ann := user(t, store, "ann")
	if _, err := s.Add(t.Context(), ann.ID, "https://first.example/"); err != nil {
		t.Fatal(err)
	}
	var outlines []opml.Outline
	for _, u := range []string{"https://a.example/", "https://b.example/", "https://c.example/", "https://d.example/"} {
		outlines = append(outlines, opml.Outline{HTMLURL: u})
	}
	im, err := s.Import(t.Context(), ann.ID, outlines, nil)
	if err != nil {
		t.Fatal(err)
	}
	queued, err := store.Discoveries(t.Context(), ann.ID, im.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(queued) != 2 || len(im.Skipped) != 2 || !strings.Contains(im.Skipped[0], "not followed: one person may follow at most 3 sites here") {
		t.Errorf("%d queued, skipped %q", len(queued), im.Skipped)
	}
	quotaOf(t, func() error { _, err := s.Import(t.Context(), ann.ID, outlines, nil); return err }(), QuotaSites)
}

// TestHarvestsPerHour: a person asks for at most HarvestsPerHour harvests
// an hour, whichever the sites; one the site's own limit refused does not
// count; an hour later they may again.
func TestHarvestsPerHour(t *testing.T) {
	store := openStore(t)
	now := time.Now()
	s := New(store, newFake(store), Options{HarvestsPerHour: 2, HarvestNowEvery: time.Minute, Now: func() time.Time { return now }})
	ann, bob := user(t, store, "ann"), user(t, store, "bob")
	var sites []db.Site
	for _, u := range []string{"https://a.example/", "https://b.example/", "https://c.example/"} {
		site, err := store.CreateSite(t.Context(), db.Site{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		sites = append(sites, site)
	}
	if err := s.HarvestNow(t.Context(), ann.ID, sites[0]); err != nil {
		t.Fatal(err)
	}
	var wait *WaitError
	if err := s.HarvestNow(t.Context(), ann.ID, sites[0]); !errors.As(err, &wait) {
		t.Fatalf("the same site again: %v, want a WaitError", err)
	}
	now = now.Add(10 * time.Minute)
	if err := s.HarvestNow(t.Context(), ann.ID, sites[1]); err != nil {
		t.Fatalf("the second of the hour: %v", err)
	}
	q := quotaOf(t, s.HarvestNow(t.Context(), ann.ID, sites[2]), QuotaHarvests)
	want := "You have asked for 2 harvests in the last hour, the most one person may here; you can ask again in 50 minutes. Your sites are still harvested on their schedule."
	if q.Message() != want {
		t.Errorf("message %q, want %q", q.Message(), want)
	}
	if err := s.HarvestNow(t.Context(), bob.ID, sites[2]); err != nil {
		t.Errorf("bob has his own: %v", err)
	}
	now = now.Add(50 * time.Minute)
	if err := s.HarvestNow(t.Context(), ann.ID, sites[0]); err != nil {
		t.Errorf("an hour after the first: %v", err)
	}
	s.Wait()
}

// TestStorageQuota: a person whose sites store more than MaxStoredPerUser
// follows no more sites and asks for no harvests; a site several people
// follow counts a share to each.
func TestStorageQuota(t *testing.T) {
	ctx := t.Context()
	store := openStore(t)
	s := New(store, newFake(store), Options{MaxStoredPerUser: 60_000})
	ann, bob := user(t, store, "ann"), user(t, store, "bob")
	site, err := store.CreateSite(ctx, db.Site{URL: "https://big.example/"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "resourcesync", Key: site.URL, SourceURL: site.URL + "caps.xml"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
		Run:       db.Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: time.Now(), FinishedAt: time.Now()},
		Snapshots: []db.Snapshot{{URL: site.URL + "a", Text: make([]byte, 100_000), FetchedAt: time.Now()}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := store.Follow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.MeasureSites(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	q := quotaOf(t, func() error { _, err := s.Add(ctx, ann.ID, "https://new.example/"); return err }(), QuotaStorage)
	if !strings.HasPrefix(q.Message(), "The sites you follow store 98 KB here, more than the 59 KB one person may") {
		t.Errorf("message %q", q.Message())
	}
	quotaOf(t, s.HarvestNow(ctx, ann.ID, site), QuotaStorage)
	if err := s.CanHarvest(ctx, ann.ID); err == nil {
		t.Error("CanHarvest says yes over the quota")
	}
	if err := store.Follow(ctx, bob.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, ann.ID, "https://new.example/"); err != nil {
		t.Errorf("with half of the site's bytes: %v", err)
	}
	if err := s.HarvestNow(ctx, bob.ID, site); err != nil {
		t.Errorf("bob, with half of the site's bytes: %v", err)
	}
	s.Wait()
}
