package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var publicIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestPublicIDsFillExistingRows: a database from before public ids gets
// one for every site and collection it holds, each its own, and rows
// created afterwards get one too.
func TestPublicIDsFillExistingRows(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tidings.db")
	step := -1
	for i, m := range migrations {
		if strings.Contains(m.sqlite, "ADD COLUMN public_id") {
			step = i
		}
	}
	if step < 0 {
		t.Fatal("no migration adds public_id")
	}
	old, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:step] {
		if _, err := old.ExecContext(ctx, m.sqlite); err != nil {
			t.Fatal(err)
		}
	}
	now := fmtTime(time.Now())
	for i := range 3 {
		if _, err := old.ExecContext(ctx, `INSERT INTO sites (url, input_url, created_at) VALUES (?, ?, ?)`,
			fmt.Sprintf("https://s%d.example/", i), "x", now); err != nil {
			t.Fatal(err)
		}
		if _, err := old.ExecContext(ctx, `INSERT INTO collections (site_id, protocol, key, source_url, created_at) VALUES (1, 'resourcesync', ?, 'x', ?)`,
			fmt.Sprintf("k%d", i), now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", step)); err != nil {
		t.Fatal(err)
	}
	old.Close()

	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	site, err := d.CreateSite(ctx, Site{URL: "https://new.example/", InputURL: "new.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.SyncCollections(ctx, site.ID, []CollectionSpec{{Protocol: "scp", Key: "new", SourceURL: "x"}}); err != nil {
		t.Fatal(err)
	}
	sites, err := d.Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := d.Collections(ctx, CollectionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) != 4 || len(cols) != 4 {
		t.Fatalf("%d sites and %d collections, want 4 of each", len(sites), len(cols))
	}
	seen := map[string]bool{}
	for _, s := range sites {
		if !publicIDPattern.MatchString(s.PublicID) || seen[s.PublicID] {
			t.Errorf("site %s: public id %q, want 32 hex digits of its own", s.URL, s.PublicID)
		}
		seen[s.PublicID] = true
		got, err := d.SiteByPublicID(ctx, s.PublicID)
		if err != nil || got.ID != s.ID {
			t.Errorf("SiteByPublicID(%q) = site %d, %v; want %d", s.PublicID, got.ID, err, s.ID)
		}
	}
	for _, c := range cols {
		if !publicIDPattern.MatchString(c.PublicID) || seen[c.PublicID] {
			t.Errorf("collection %s: public id %q, want 32 hex digits of its own", c.Key, c.PublicID)
		}
		seen[c.PublicID] = true
		got, err := d.CollectionByPublicID(ctx, c.PublicID)
		if err != nil || got.ID != c.ID {
			t.Errorf("CollectionByPublicID(%q) = collection %d, %v; want %d", c.PublicID, got.ID, err, c.ID)
		}
	}
	if _, err := d.SiteByPublicID(ctx, "1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a site by a made-up public id: %v, want ErrNotFound", err)
	}
	if _, err := d.CollectionByPublicID(ctx, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("a collection by an empty public id: %v, want ErrNotFound", err)
	}
}

// TestOpenDiscoveries: the dashboard reports each address once, by its
// latest attempt, and no longer once that succeeded or was dismissed.
func TestOpenDiscoveries(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	site, _ := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	finish := func(u User, input, status string) Discovery {
		t.Helper()
		x, err := d.CreateDiscovery(ctx, u.ID, 0, input)
		if err != nil {
			t.Fatal(err)
		}
		siteID := int64(0)
		if status == DiscoveryFollowed {
			siteID = site.ID
		}
		if status != DiscoveryPending {
			if err := d.FinishDiscovery(ctx, x.ID, status, siteID, "msg"); err != nil {
				t.Fatal(err)
			}
		}
		return x
	}
	finish(ann, "bad.example", DiscoveryFailed)
	bad := finish(ann, "bad.example", DiscoveryFailed)
	finish(ann, "example.org", DiscoveryFailed)
	finish(ann, "example.org", DiscoveryFollowed)
	wait := finish(ann, "slow.example", DiscoveryPending)
	bobs := finish(bob, "bad.example", DiscoveryFailed)

	ids := func(u User) []int64 {
		t.Helper()
		xs, err := d.OpenDiscoveries(ctx, u.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, x := range xs {
			out = append(out, x.ID)
		}
		return out
	}
	if got := ids(ann); fmt.Sprint(got) != fmt.Sprint([]int64{wait.ID, bad.ID}) {
		t.Fatalf("ann's open discoveries %v, want [%d %d]: the pending one, then the latest failure at bad.example", got, wait.ID, bad.ID)
	}
	if err := d.DismissDiscovery(ctx, bob.ID, bad.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob dismissing ann's discovery: %v, want ErrNotFound", err)
	}
	if err := d.DismissDiscovery(ctx, ann.ID, wait.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("dismissing a pending discovery: %v, want ErrNotFound", err)
	}
	if err := d.DismissDiscovery(ctx, ann.ID, bad.ID); err != nil {
		t.Fatal(err)
	}
	if got := ids(ann); fmt.Sprint(got) != fmt.Sprint([]int64{wait.ID}) {
		t.Errorf("ann's open discoveries after dismissing bad.example: %v, want only %d (the earlier failure there too is gone)", got, wait.ID)
	}
	if got := ids(bob); fmt.Sprint(got) != fmt.Sprint([]int64{bobs.ID}) {
		t.Errorf("bob's open discoveries %v, want his own failure %d still there", got, bobs.ID)
	}
}
