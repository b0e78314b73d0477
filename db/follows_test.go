package db

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// testUser creates an account named name.
func testUser(t *testing.T, d *DB, name string) User {
	t.Helper()
	u, err := d.CreateUser(context.Background(), name, "hash-"+name, "token-"+name, "")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func siteURLs(sites []Site) []string {
	out := make([]string, len(sites))
	for i, s := range sites {
		out[i] = s.URL
	}
	return out
}

// TestFollowsAreEachUsersOwn: one user's follows, feeds and stamps never
// show another's sites.
func TestFollowsAreEachUsersOwn(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	shrine, gallery, wiki := testCollection(t, d, "shrine"), testCollection(t, d, "gallery"), testCollection(t, d, "wiki")
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for i, col := range []Collection{shrine, gallery, wiki} {
		storeRun(t, d, col, at.Add(time.Duration(i)*time.Hour), "",
			Change{URL: col.SiteURL + "page", Kind: "updated", Datetime: at.Add(time.Duration(i) * time.Hour)})
	}
	for _, f := range []struct {
		user User
		col  Collection
	}{{ann, shrine}, {ann, wiki}, {bob, gallery}} {
		if err := d.Follow(ctx, f.user.ID, f.col.SiteID); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		user      User
		sites     []string
		changes   []string
		follows   Collection
		notFollow Collection
	}{
		{ann, []string{shrine.SiteURL, wiki.SiteURL}, []string{wiki.SiteURL + "page", shrine.SiteURL + "page"}, shrine, gallery},
		{bob, []string{gallery.SiteURL}, []string{gallery.SiteURL + "page"}, gallery, wiki},
	}
	for _, tt := range tests {
		t.Run(tt.user.Name, func(t *testing.T) {
			sites, err := d.FollowedSites(ctx, tt.user.ID)
			if err != nil || !slices.Equal(siteURLs(sites), tt.sites) {
				t.Errorf("followed sites %q, %v; want %q", siteURLs(sites), err, tt.sites)
			}
			changes, err := d.FeedChanges(ctx, Scope{UserID: tt.user.ID}, 10)
			var urls []string
			for _, c := range changes {
				urls = append(urls, c.URL)
			}
			if err != nil || !slices.Equal(urls, tt.changes) {
				t.Errorf("aggregate feed %q, %v; want %q newest first", urls, err, tt.changes)
			}
			digests, err := d.Digests(ctx, Scope{UserID: tt.user.ID}, 10)
			if err != nil || len(digests) != len(tt.changes) {
				t.Errorf("aggregate digests %+v, %v; want %d", digests, err, len(tt.changes))
			}
			if ok, err := d.Follows(ctx, tt.user.ID, tt.follows.SiteID); err != nil || !ok {
				t.Errorf("Follows(%s) = %v, %v; want true", tt.follows.SiteURL, ok, err)
			}
			if ok, err := d.Follows(ctx, tt.user.ID, tt.notFollow.SiteID); err != nil || ok {
				t.Errorf("Follows(%s) = %v, %v; want false", tt.notFollow.SiteURL, ok, err)
			}
		})
	}

	followers, err := d.Followers(ctx)
	if err != nil || len(followers) != 3 || followers[shrine.SiteID] != 1 || followers[gallery.SiteID] != 1 {
		t.Fatalf("followers %v, %v", followers, err)
	}
	if err := d.Follow(ctx, bob.ID, shrine.SiteID); err != nil {
		t.Fatal(err)
	}
	if f, _ := d.Followers(ctx); f[shrine.SiteID] != 2 {
		t.Errorf("followers of a site followed twice: %d, want 2", f[shrine.SiteID])
	}
	if err := d.Unfollow(ctx, ann.ID, shrine.SiteID); err != nil {
		t.Fatal(err)
	}
	if ok, _ := d.Follows(ctx, ann.ID, shrine.SiteID); ok {
		t.Error("still following after Unfollow")
	}
	if ok, _ := d.Follows(ctx, bob.ID, shrine.SiteID); !ok {
		t.Error("one user's unfollow ended another's follow")
	}
	if err := d.Follow(ctx, ann.ID, 999); err == nil || errors.Is(err, ErrAlreadyExists) {
		t.Errorf("following a site that does not exist: %v, want a foreign key error", err)
	}
}

func TestDiscoveries(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	site, err := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	if err != nil {
		t.Fatal(err)
	}

	a1, err := d.CreateDiscovery(ctx, ann.ID, 0, "example.org")
	if err != nil {
		t.Fatal(err)
	}
	if a1.Status != DiscoveryPending || a1.UserID != ann.ID || a1.ImportID != 0 || a1.InputURL != "example.org" || a1.FinishedAt != nil || a1.CreatedAt.IsZero() {
		t.Fatalf("new discovery %+v", a1)
	}
	a2, _ := d.CreateDiscovery(ctx, ann.ID, 0, "nowhere.example")
	b1, _ := d.CreateDiscovery(ctx, bob.ID, 0, "https://example.org/")
	a3, _ := d.CreateDiscovery(ctx, ann.ID, 0, "example.org/again")
	if _, err := d.CreateDiscovery(ctx, 999, 0, "x"); err == nil {
		t.Error("a discovery for a user who does not exist was stored")
	}

	pending, err := d.PendingDiscoveries(ctx)
	if err != nil || len(pending) != 4 || pending[0].ID != a1.ID || pending[3].ID != a3.ID {
		t.Fatalf("pending %+v, %v; want all four, oldest first", pending, err)
	}
	if n, err := d.PendingCount(ctx, ann.ID); err != nil || n != 3 {
		t.Errorf("ann's pending count %d, %v; want 3", n, err)
	}

	steps := []struct {
		id      int64
		status  string
		siteID  int64
		message string
	}{
		{a1.ID, DiscoveryFollowed, site.ID, ""},
		{a2.ID, DiscoveryFailed, 0, "nothing answered at nowhere.example"},
		{b1.ID, DiscoveryFollowed, site.ID, ""},
		// Already followed: the follow stays one follow.
		{a3.ID, DiscoveryAlready, site.ID, "already followed"},
	}
	for _, s := range steps {
		if err := d.FinishDiscovery(ctx, s.id, s.status, s.siteID, s.message); err != nil {
			t.Fatalf("finish %d as %s: %v", s.id, s.status, err)
		}
		got, err := d.DiscoveryByID(ctx, s.id)
		if err != nil || got.Status != s.status || got.SiteID != s.siteID || got.Message != s.message || got.FinishedAt == nil {
			t.Errorf("discovery %d after finishing: %+v, %v", s.id, got, err)
		}
	}
	if err := d.FinishDiscovery(ctx, a2.ID, "lost", 0, ""); err == nil {
		t.Error("a discovery status outside the four was stored")
	}
	if pending, _ := d.PendingDiscoveries(ctx); len(pending) != 0 {
		t.Errorf("pending after finishing all: %+v", pending)
	}
	if n, _ := d.PendingCount(ctx, ann.ID); n != 0 {
		t.Errorf("ann's pending count after finishing all: %d", n)
	}
	for _, u := range []User{ann, bob} {
		if ok, _ := d.Follows(ctx, u.ID, site.ID); !ok {
			t.Errorf("%s does not follow the site their discovery found", u.Name)
		}
	}
	if f, _ := d.Followers(ctx); f[site.ID] != 2 {
		t.Errorf("followers %v, want 2", f)
	}

	mine, err := d.Discoveries(ctx, ann.ID, 0, 2)
	if err != nil || len(mine) != 2 || mine[0].ID != a3.ID || mine[1].ID != a2.ID {
		t.Errorf("ann's two newest discoveries: %+v, %v", mine, err)
	}
	theirs, _ := d.Discoveries(ctx, bob.ID, 0, 10)
	if len(theirs) != 1 || theirs[0].ID != b1.ID {
		t.Errorf("bob's discoveries: %+v", theirs)
	}
	if _, err := d.DiscoveryByID(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing discovery: %v, want ErrNotFound", err)
	}
}

func TestFailedDiscoveryFollowsNothing(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann := testUser(t, d, "ann")
	site, _ := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	x, _ := d.CreateDiscovery(ctx, ann.ID, 0, "example.org")
	if err := d.FinishDiscovery(ctx, x.ID, DiscoveryFailed, site.ID, "no change information"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := d.Follows(ctx, ann.ID, site.ID); ok {
		t.Error("a failed discovery made a follow")
	}
	// A follow of a site that does not exist fails the whole transaction.
	y, _ := d.CreateDiscovery(ctx, ann.ID, 0, "example.net")
	if err := d.FinishDiscovery(ctx, y.ID, DiscoveryFollowed, 999, ""); err == nil {
		t.Fatal("finishing with an unknown site succeeded")
	}
	if got, _ := d.DiscoveryByID(ctx, y.ID); got.Status != DiscoveryPending || got.FinishedAt != nil {
		t.Errorf("discovery after a failed finish: %+v, want it still pending", got)
	}
}

func TestImports(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	urls := []string{"https://a.example/", "https://b.example/", "https://c.example/"}
	skipped := []string{"outline 4: no xmlUrl", "outline 7: not http"}
	im, err := d.CreateImport(ctx, ann.ID, urls, skipped)
	if err != nil {
		t.Fatal(err)
	}
	if im.UserID != ann.ID || !slices.Equal(im.Skipped, skipped) || im.CreatedAt.IsZero() {
		t.Errorf("import %+v", im)
	}
	clean, err := d.CreateImport(ctx, ann.ID, urls[:1], nil)
	if err != nil || clean.Skipped != nil {
		t.Errorf("import with nothing skipped: %+v, %v", clean, err)
	}
	if _, err := d.CreateDiscovery(ctx, bob.ID, 0, "https://d.example/"); err != nil {
		t.Fatal(err)
	}

	of, err := d.Discoveries(ctx, ann.ID, im.ID, 10)
	if err != nil || len(of) != 3 {
		t.Fatalf("discoveries of the import: %+v, %v", of, err)
	}
	for i, x := range of {
		if want := urls[len(urls)-1-i]; x.InputURL != want || x.ImportID != im.ID || x.Status != DiscoveryPending {
			t.Errorf("discovery %d: %+v, want %s pending, newest first", i, x, want)
		}
	}
	if all, _ := d.Discoveries(ctx, ann.ID, 0, 10); len(all) != 4 {
		t.Errorf("ann's discoveries across imports: %d, want 4", len(all))
	}
	if got, err := d.ImportByID(ctx, im.ID); err != nil || got.ID != im.ID || len(got.Skipped) != 2 {
		t.Errorf("ImportByID: %+v, %v", got, err)
	}
	if _, err := d.ImportByID(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing import: %v, want ErrNotFound", err)
	}

	// An import for a user who does not exist stores neither the import
	// nor any of its discoveries.
	before, _ := d.PendingDiscoveries(ctx)
	if _, err := d.CreateImport(ctx, 999, urls, nil); err == nil {
		t.Fatal("an import of an unknown user was stored")
	}
	after, _ := d.PendingDiscoveries(ctx)
	if len(after) != len(before) {
		t.Errorf("pending discoveries %d -> %d after a failed import", len(before), len(after))
	}

	// Deleting the user takes their imports and discoveries along.
	if err := d.DeleteUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ImportByID(ctx, im.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("import of a deleted user: %v, want ErrNotFound", err)
	}
	if left, _ := d.PendingDiscoveries(ctx); len(left) != 1 || left[0].UserID != bob.ID {
		t.Errorf("pending after deleting ann: %+v, want only bob's", left)
	}
}
