package db

import (
	"context"
	"testing"
	"time"
)

// undoMigrationNine rewinds migrations 10 and 9, for tests of earlier
// ones.
var undoMigrationNine = append(undoMigrationTen, "DROP TRIGGER follows_last_left", "DROP TRIGGER follows_back",
	"ALTER TABLE sites DROP COLUMN unfollowed_at", "ALTER TABLE sites DROP COLUMN history_deleted_at")

// undoMigrationTen rewinds migration 10 and those after it: the one that
// reshaped snapshots and queued pages for them, the public ids.
var undoMigrationTen = append(append([]string{"DROP TABLE IF EXISTS snapshot_queue"}, undoPublicIDs...), "DROP TABLE snapshots",
	"ALTER TABLE changes DROP COLUMN text_change", "ALTER TABLE changes DROP COLUMN diff")

// undoPublicIDs rewinds the migration of public ids and dismissed
// discoveries, and those after it.
var undoPublicIDs = append(undoFollowing,
	"DROP TRIGGER sites_public_id", "DROP INDEX sites_public_id", "ALTER TABLE sites DROP COLUMN public_id",
	"DROP TRIGGER collections_public_id", "DROP INDEX collections_public_id", "ALTER TABLE collections DROP COLUMN public_id",
	"ALTER TABLE discoveries DROP COLUMN dismissed_at",
)

// undoFollowing rewinds the migration of "now following" runs and
// follow titles.
var undoFollowing = append(undoPageChecks, "DROP INDEX runs_following", "ALTER TABLE runs DROP COLUMN following", "ALTER TABLE runs DROP COLUMN pages",
	"ALTER TABLE runs DROP COLUMN last_change_id", "ALTER TABLE discoveries DROP COLUMN title", "ALTER TABLE follows DROP COLUMN title")

// TestLastFollowerLeaving: a site stops being harvested when its last
// follower leaves, by unfollowing or by their account being deleted; its
// history is deleted only after the retention; following it again brings
// it back. A site only the command line follows stays harvested.
func TestLastFollowerLeaving(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	col := testCollection(t, d, "shrine")
	cliOnly := testCollection(t, d, "cli")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	storeRun(t, d, col, t0, "", Change{URL: "https://shrine.example/a", Kind: "updated", Datetime: t0})
	if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t0, FinishedAt: t0},
		Pending: SnapshotQueue{Queue: []PendingText{{CollectionID: col.ID, URL: "https://shrine.example/a", Kind: "updated", Datetime: t0}}}}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []User{ann, bob} {
		if err := d.Follow(ctx, u.ID, col.SiteID); err != nil {
			t.Fatal(err)
		}
	}
	site := func() Site {
		t.Helper()
		s, err := d.SiteByID(ctx, col.SiteID)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	due := func() []string {
		t.Helper()
		sites, err := d.DueSites(ctx, time.Now().Add(48*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return siteURLs(sites)
	}

	if err := d.Unfollow(ctx, ann.ID, col.SiteID); err != nil {
		t.Fatal(err)
	}
	if s := site(); s.UnfollowedAt != nil {
		t.Fatalf("unfollowed while bob still follows: %v", s.UnfollowedAt)
	}
	before := time.Now().Add(-time.Second)
	if err := d.DeleteUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	s := site()
	if s.UnfollowedAt == nil || s.UnfollowedAt.Before(before) || s.UnfollowedAt.After(time.Now()) {
		t.Fatalf("after its last follower's account was deleted: unfollowed at %v", s.UnfollowedAt)
	}
	if got := due(); len(got) != 1 || got[0] != cliOnly.SiteURL {
		t.Errorf("due sites %q, want only the one the command line follows", got)
	}
	if sites, _ := d.HarvestedSites(ctx); len(sites) != 1 || sites[0].ID != cliOnly.SiteID {
		t.Errorf("harvested sites %q", siteURLs(sites))
	}

	// Within the retention the history stays.
	if n, err := d.DeleteUnfollowedHistory(ctx, s.UnfollowedAt.Add(-time.Second)); err != nil || n != 0 {
		t.Fatalf("within the retention: %d deleted, %v", n, err)
	}
	if got, _ := d.FeedChanges(ctx, Scope{CollectionID: col.ID}, 10); len(got) != 1 {
		t.Fatalf("changes within the retention: %+v", got)
	}
	if n, err := d.DeleteUnfollowedHistory(ctx, s.UnfollowedAt.Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("after the retention: %d deleted, %v", n, err)
	}
	if got, _ := d.FeedChanges(ctx, Scope{CollectionID: col.ID}, 10); len(got) != 0 {
		t.Errorf("changes left: %+v", got)
	}
	if runs, _ := d.Runs(ctx, col.SiteID, 10); len(runs) != 0 {
		t.Errorf("runs left: %+v", runs)
	}
	if due, _ := d.PendingTexts(ctx, col.SiteID, col.ID, 10); len(due) != 0 {
		t.Errorf("pages pending a snapshot left: %+v", due)
	}
	if c, err := d.CollectionByID(ctx, col.ID); err != nil || c.LastSuccessAt != nil || c.LastProcessedAt != nil {
		t.Errorf("collection after its history went: %+v, %v", c, err)
	}
	if s := site(); s.HistoryDeletedAt == nil || s.UnfollowedAt == nil || s.LastHarvestAt != nil {
		t.Errorf("site after its history went: %+v", s)
	}
	if got, _ := d.FeedChanges(ctx, Scope{CollectionID: cliOnly.ID}, 10); len(got) != 0 {
		t.Errorf("the other site's changes: %+v", got)
	}
	gen := d.Generation(ctx)
	if n, err := d.DeleteUnfollowedHistory(ctx, time.Now().Add(time.Hour)); err != nil || n != 0 {
		t.Errorf("a second sweep: %d deleted, %v", n, err)
	}
	if d.Generation(ctx) != gen {
		t.Error("a sweep with nothing to delete wrote to the database")
	}

	if err := d.Follow(ctx, ann.ID, col.SiteID); err != nil {
		t.Fatal(err)
	}
	if s := site(); s.UnfollowedAt != nil || s.HistoryDeletedAt != nil {
		t.Errorf("followed again: %+v", s)
	}
	if got := due(); len(got) != 2 {
		t.Errorf("due after following again: %q", got)
	}

	if err := d.Unfollow(ctx, ann.ID, col.SiteID); err != nil {
		t.Fatal(err)
	}
	if err := d.ResumeSite(ctx, col.SiteID); err != nil {
		t.Fatal(err)
	}
	if s := site(); s.UnfollowedAt != nil {
		t.Errorf("resumed: %+v", s)
	}
}
