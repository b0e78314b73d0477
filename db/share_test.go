package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// churnDays stores one harvest of col a day, on days from..to, in which
// every one of its pages changed whole: a change of each, with a diff of
// about 1 KB, and the page's new snapshot.
func churnDays(t *testing.T, d *DB, col Collection, t0 time.Time, pages, from, to int) {
	t.Helper()
	for n := from; n <= to; n++ {
		at := day(t0, n)
		h := CollectionHarvest{Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at, FinishedAt: at}}
		for k := range pages {
			u := fmt.Sprintf("%spage%d", col.SiteURL, k)
			text := strings.Repeat(fmt.Sprintf("day %d, page %d. ", n, k), 60)
			h.Changes = append(h.Changes, Change{URL: u, Kind: "updated", Datetime: at, TextChange: TextChanged,
				Diff: fmt.Sprintf(`{"added":%q}`, text)})
			h.Snapshots = append(h.Snapshots, Snapshot{URL: u, ContentHash: hash(text), Text: []byte(text), FetchedAt: at})
		}
		if _, err := d.SaveCollectionHarvest(context.Background(), h); err != nil {
			t.Fatal(err)
		}
	}
}

// storedBytes is what the sweep last measured of a site.
func storedBytes(t *testing.T, d *DB, siteID int64) int64 {
	t.Helper()
	list, err := d.SitesByStorage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.Site.ID == siteID {
			return s.Bytes
		}
	}
	t.Fatalf("site %d is not listed by storage", siteID)
	return 0
}

// TestPruneToShareOldestFirst: a site whose twenty pages change whole
// every day, ten days of it, passes its share; pruning deletes its oldest
// days, only as many as bring it back within the share, keeps the newest
// and every page's snapshot, and says where the feed's history ends. A
// site within the share is left alone.
func TestPruneToShareOldestFirst(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	churn := testCollection(t, d, "churn")
	calm := testCollection(t, d, "calm")
	churnDays(t, d, churn, t0, 20, 0, 9)
	churnDays(t, d, calm, t0, 2, 0, 1)
	now := day(t0, 10)
	if _, err := d.MeasureSites(ctx, now); err != nil {
		t.Fatal(err)
	}
	before := storedBytes(t, d, churn.SiteID)
	calmBytes := storedBytes(t, d, calm.SiteID)
	stamp, err := d.Stamp(ctx, Scope{SiteID: churn.SiteID})
	if err != nil {
		t.Fatal(err)
	}
	// A share three and a half days' changes short of what the site
	// stores takes four days.
	var dayBytes int64
	if err := d.r.QueryRowContext(ctx, `SELECT sum(`+changeBytes+`) FROM changes WHERE collection_id = ? AND datetime = ?`,
		churn.ID, fmtTime(t0)).Scan(&dayBytes); err != nil {
		t.Fatal(err)
	}
	share := before - 7*dayBytes/2
	if calmBytes >= share {
		t.Fatalf("the calm site stores %d bytes, not within the share %d", calmBytes, share)
	}

	sp, err := d.PruneToShare(ctx, Share{Bytes: share, Keep: 30}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changeDays(t, d, churn, t0), daysOf(20, 4, 9); !slices.Equal(got, want) {
		t.Errorf("days of the changes kept = %v, want days 4 to 9", got)
	}
	after := storedBytes(t, d, churn.SiteID)
	if after > share || after < share-2*dayBytes {
		t.Errorf("the site stores %d bytes after, want at most its share %d, and no day more pruned than needed", after, share)
	}
	if sp.Sites != 1 || sp.Changes != 80 || sp.Over != 0 || sp.Runs != 4 {
		t.Errorf("pruned %+v, want 80 changes and 4 runs of 1 site, none over after", sp)
	}
	if got, want := len(changeDays(t, d, calm, t0)), 4; got != want || storedBytes(t, d, calm.SiteID) != calmBytes {
		t.Errorf("the calm site has %d changes, want its %d untouched", got, want)
	}
	col, err := d.CollectionByID(ctx, churn.ID)
	if err != nil {
		t.Fatal(err)
	}
	if col.PrunedUntil == nil || !col.PrunedUntil.Equal(day(t0, 3)) {
		t.Errorf("pruned until %v, want day 3's changes the newest gone", col.PrunedUntil)
	}
	if again, err := d.Stamp(ctx, Scope{SiteID: churn.SiteID}); err != nil || again.Version == stamp.Version {
		t.Errorf("the feed stamp did not move with the pruning: %q, %v", again.Version, err)
	}
	// Each page's snapshot is what its next version is compared with.
	var urls []string
	for k := range 20 {
		urls = append(urls, fmt.Sprintf("%spage%d", churn.SiteURL, k))
	}
	if snaps, err := d.Snapshots(ctx, churn.SiteID, urls); err != nil || len(snaps) != 20 {
		t.Errorf("%d snapshots kept of 20 pages, %v", len(snaps), err)
	}
	cut, err := d.ShareCutOf(ctx, churn.SiteID)
	if err != nil {
		t.Fatal(err)
	}
	if cut.Share != share || !cut.At.Equal(now) || !cut.Until.Equal(day(t0, 3)) {
		t.Errorf("the cut recorded: %+v, want at %v, share %d, until day 3", cut, now, share)
	}
	if _, err := d.ShareCutOf(ctx, calm.SiteID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the calm site's cut: %v, want ErrNotFound", err)
	}
	if cuts, err := d.ShareCuts(ctx); err != nil || len(cuts) != 1 || cuts[churn.SiteID] != cut {
		t.Errorf("cuts listed: %v, %v; want the churning site's alone", cuts, err)
	}

	// Within its share, a second pass deletes nothing.
	if sp, err := d.PruneToShare(ctx, Share{Bytes: share, Keep: 30}, now); err != nil || sp != (SharePruned{}) {
		t.Errorf("a second pass pruned %+v, %v", sp, err)
	}
}

// TestPruneToShareKeepsWhatItMust: a share smaller than what a site must
// keep leaves each collection's newest changes and the pages' snapshots,
// and counts the site as still over.
func TestPruneToShareKeepsWhatItMust(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	churn := testCollection(t, d, "churn")
	churnDays(t, d, churn, t0, 20, 0, 4)
	now := day(t0, 5)
	if _, err := d.MeasureSites(ctx, now); err != nil {
		t.Fatal(err)
	}
	sp, err := d.PruneToShare(ctx, Share{Bytes: 1000, Keep: 30}, now)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Changes != 70 || sp.Over != 1 {
		t.Errorf("pruned %+v, want 70 changes and the site still over", sp)
	}
	if got := changeDays(t, d, churn, t0); !slices.Equal(got, append(daysOf(10, 3, 3), daysOf(20, 4, 4)...)) {
		t.Errorf("days of the changes kept = %v, want the newest 30", got)
	}
	var urls []string
	for k := range 20 {
		urls = append(urls, fmt.Sprintf("%spage%d", churn.SiteURL, k))
	}
	if snaps, err := d.Snapshots(ctx, churn.SiteID, urls); err != nil || len(snaps) != 20 {
		t.Errorf("%d snapshots kept of 20 pages, %v", len(snaps), err)
	}
}

// TestShareCutForgottenWithTheHistory: a site whose history was deleted
// whole (nobody followed it) no longer says it was cut.
func TestShareCutForgottenWithTheHistory(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	churn := testCollection(t, d, "churn")
	churnDays(t, d, churn, t0, 20, 0, 4)
	if _, err := d.MeasureSites(ctx, day(t0, 5)); err != nil {
		t.Fatal(err)
	}
	if sp, err := d.PruneToShare(ctx, Share{Bytes: 1000, Keep: 20}, day(t0, 5)); err != nil || sp.Sites != 1 {
		t.Fatalf("pruned %+v, %v", sp, err)
	}
	if _, err := d.w.ExecContext(ctx, `UPDATE sites SET unfollowed_at = ? WHERE id = ?`, fmtTime(day(t0, 5)), churn.SiteID); err != nil {
		t.Fatal(err)
	}
	if n, err := d.DeleteUnfollowedHistory(ctx, day(t0, 6)); err != nil || n != 1 {
		t.Fatalf("deleted the history of %d sites, %v", n, err)
	}
	if _, err := d.ShareCutOf(ctx, churn.SiteID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the cut after the history went: %v, want ErrNotFound", err)
	}
	if _, err := d.PruneToShare(ctx, Share{Bytes: 1000, Keep: 20}, day(t0, 6)); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM share_cuts`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d cuts left, %v; want the emptied site's forgotten", n, err)
	}
}

// daysOf lists each of the days from..to n times, as changeDays does.
func daysOf(n, from, to int) []int {
	var out []int
	for d := from; d <= to; d++ {
		for range n {
			out = append(out, d)
		}
	}
	return out
}
