package db

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// day is t0 plus n days.
func day(t0 time.Time, n int) time.Time { return t0.Add(time.Duration(n) * 24 * time.Hour) }

// harvestDays stores one harvest of col a day, on days from..to, each
// with three changes dated that day and their pages' snapshots.
func harvestDays(t *testing.T, d *DB, col Collection, t0 time.Time, from, to int) {
	t.Helper()
	for n := from; n <= to; n++ {
		at := day(t0, n)
		h := CollectionHarvest{Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at, FinishedAt: at}}
		for k := range 3 {
			u := fmt.Sprintf("%sday%d/p%d", siteOf(col), n, k)
			h.Changes = append(h.Changes, Change{URL: u, Kind: "updated", Datetime: at, TextChange: TextChanged, Diff: `{"added":1}`})
			h.Snapshots = append(h.Snapshots, Snapshot{URL: u, ContentHash: hash(u), Text: []byte("text of " + u), FetchedAt: at})
		}
		if _, err := d.SaveCollectionHarvest(context.Background(), h); err != nil {
			t.Fatal(err)
		}
	}
}

func siteOf(col Collection) string { return col.SiteURL }

// changeDays lists the days of a collection's changes, oldest first, one
// entry a change.
func changeDays(t *testing.T, d *DB, col Collection, t0 time.Time) []int {
	t.Helper()
	list, err := d.changesWhere(context.Background(), "ch.collection_id = ? ORDER BY ch.datetime, ch.id", 0, col.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, c := range list {
		out = append(out, int(c.Datetime.Sub(t0)/(24*time.Hour)))
	}
	return out
}

// runChanges maps each of a collection's runs, by the day it finished, to
// its change count.
func runChanges(t *testing.T, d *DB, col Collection, t0 time.Time) map[int]int {
	t.Helper()
	runs, err := d.Runs(context.Background(), col.SiteID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, r := range runs {
		if r.CollectionID == col.ID {
			out[int(r.FinishedAt.Sub(t0)/(24*time.Hour))] = r.Changes
		}
	}
	return out
}

// TestPruneHistoryKeepsATimeAndACount: changes older than the retention
// go, but never a collection's newest Keep, nor those at its watermark;
// runs left without changes go, the newest stays; the collection says
// how far it was pruned, and its feed stamp moves.
func TestPruneHistoryKeepsATimeAndACount(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	busy := testCollection(t, d, "busy")
	quiet := testCollection(t, d, "quiet")
	marked := testCollection(t, d, "marked")
	harvestDays(t, d, busy, t0, 0, 9)
	harvestDays(t, d, quiet, t0, 0, 2)
	harvestDays(t, d, marked, t0, 0, 4)
	// A change list read again from its watermark must find what it
	// stored there, or it would store it again as new.
	watermark := day(t0, 3)
	if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run: Run{SiteID: marked.SiteID, CollectionID: marked.ID, StartedAt: day(t0, 5), FinishedAt: day(t0, 5)}, Watermark: &watermark,
	}); err != nil {
		t.Fatal(err)
	}
	stamp, err := d.Stamp(ctx, Scope{CollectionID: busy.ID})
	if err != nil {
		t.Fatal(err)
	}

	p, err := d.PruneHistory(ctx, Retention{Before: day(t0, 6), Keep: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changeDays(t, d, busy, t0), []int{6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9}; !slices.Equal(got, want) {
		t.Errorf("busy: days of the changes kept = %v, want %v", got, want)
	}
	if got, want := changeDays(t, d, quiet, t0), []int{1, 1, 2, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("quiet: days of the changes kept = %v, want the newest five %v", got, want)
	}
	if got, want := changeDays(t, d, marked, t0), []int{3, 3, 3, 4, 4, 4}; !slices.Equal(got, want) {
		t.Errorf("marked: days of the changes kept = %v, want those from its watermark on %v", got, want)
	}
	if p.Changes != 18+4+9 || p.Collections != 3 {
		t.Errorf("pruned %+v, want 31 changes of 3 collections", p)
	}
	// The first run is the "now following" one; its changes gone, it
	// goes too. The runs whose changes went in part count what is left.
	if got, want := runChanges(t, d, busy, t0), map[int]int{6: 3, 7: 3, 8: 3, 9: 3}; !maps.Equal(got, want) {
		t.Errorf("busy: runs by day = %v, want %v", got, want)
	}
	if got, want := runChanges(t, d, quiet, t0), map[int]int{1: 2, 2: 3}; !maps.Equal(got, want) {
		t.Errorf("quiet: runs by day = %v, want %v", got, want)
	}
	for _, c := range []struct {
		col  Collection
		want time.Time
	}{{busy, day(t0, 5)}, {quiet, day(t0, 1)}, {marked, day(t0, 2)}} {
		got, err := d.CollectionByID(ctx, c.col.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.PrunedUntil == nil || !got.PrunedUntil.Equal(c.want) {
			t.Errorf("%s: pruned until %v, want %v", c.col.Title, got.PrunedUntil, c.want)
		}
		if c.col.ID == quiet.ID && (got.Changes != 5 || got.History != 0) {
			t.Errorf("quiet: %d changes in the feed, %d history; want 5 and 0", got.Changes, got.History)
		}
	}
	if again, err := d.Stamp(ctx, Scope{CollectionID: busy.ID}); err != nil || again.Version == stamp.Version {
		t.Errorf("the feed stamp did not move with the pruning: %q, %v", again.Version, err)
	}
	// Snapshots of pages whose changes are all gone go with them.
	snaps, err := d.Snapshots(ctx, busy.SiteID, []string{busy.SiteURL + "day5/p0", busy.SiteURL + "day6/p0"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snaps[busy.SiteURL+"day5/p0"]; ok || len(snaps) != 1 {
		t.Errorf("snapshots left: %v, want only day 6's", slices.Collect(maps.Keys(snaps)))
	}

	// A second sweep finds nothing more.
	if p, err := d.PruneHistory(ctx, Retention{Before: day(t0, 6), Keep: 5}); err != nil || p != (Pruned{}) {
		t.Errorf("a second sweep pruned %+v, %v", p, err)
	}
}

// TestPruneHistoryInChunks: a large history goes in several transactions,
// and the run that stored it counts what is left.
func TestPruneHistoryInChunks(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "big")
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var changes []Change
	for i := range 2*pruneChunk + 500 {
		changes = append(changes, Change{URL: fmt.Sprintf("%sp%d", col.SiteURL, i), Kind: "created", Datetime: t0.Add(time.Duration(i) * time.Second)})
	}
	storeRun(t, d, col, day(t0, 1), "", changes...)
	p, err := d.PruneHistory(ctx, Retention{Before: day(t0, 10), Keep: 10})
	if err != nil {
		t.Fatal(err)
	}
	if p.Changes != int64(len(changes)-10) {
		t.Errorf("pruned %d changes, want %d", p.Changes, len(changes)-10)
	}
	got, err := d.CollectionByID(ctx, col.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Changes != 10 || got.History != 0 {
		t.Errorf("%d changes in the feed, %d history; want the newest 10", got.Changes, got.History)
	}
	if want := changes[len(changes)-11].Datetime; got.PrunedUntil == nil || !got.PrunedUntil.Equal(want) {
		t.Errorf("pruned until %v, want %v", got.PrunedUntil, want)
	}
}

// TestPruneSnapshotsKeepsWhatIsNeeded: a snapshot stays while a
// collection lists or watches its page, while the page waits for one, and
// for a change list while a change of the page is kept; the others go.
func TestPruneSnapshotsKeepsWhatIsNeeded(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	listed, err := d.SyncCollections(ctx, col.SiteID, []CollectionSpec{
		{Protocol: "resourcesync", Key: col.Key, SourceURL: col.SourceURL, Title: "shrine"},
		{Protocol: "sitemap", Key: col.SiteURL + "sitemap.xml", SourceURL: col.SiteURL + "sitemap.xml"},
	})
	if err != nil || len(listed) != 2 {
		t.Fatalf("sync: %v, %v", listed, err)
	}
	sitemap := listed[1]
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	u := func(name string) string { return col.SiteURL + name }
	var snaps []Snapshot
	for _, name := range []string{"changed", "listed", "watched", "queued", "was-listed", "nothing"} {
		snaps = append(snaps, Snapshot{URL: u(name), ContentHash: hash(name), Text: []byte(name), FetchedAt: t0})
	}
	if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t0, FinishedAt: t0}, Snapshots: snaps,
		Changes: []Change{{URL: u("changed"), Kind: "updated", Datetime: t0}},
		Pending: SnapshotQueue{Queue: []PendingText{{CollectionID: col.ID, URL: u("queued"), Kind: "updated", Datetime: t0}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run:   Run{SiteID: col.SiteID, CollectionID: sitemap.ID, StartedAt: t0, FinishedAt: t0},
		Pages: []Page{{URL: u("listed")}, {URL: u("watched")}}, Watched: []WatchedPage{{URL: u("watched"), CheckedAt: t0}},
		// A page the list no longer names keeps no snapshot for its
		// changes: the list's next version is what would be compared.
		Changes: []Change{{URL: u("was-listed"), Kind: "updated", Datetime: t0}},
	}); err != nil {
		t.Fatal(err)
	}
	p, err := d.PruneHistory(ctx, Retention{Before: t0, Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	all := []string{u("changed"), u("listed"), u("watched"), u("queued"), u("was-listed"), u("nothing")}
	left, err := d.Snapshots(ctx, col.SiteID, all)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range all {
		if _, ok := left[s]; ok {
			got = append(got, strings.TrimPrefix(s, col.SiteURL))
		}
	}
	if want := []string{"changed", "listed", "watched", "queued"}; !slices.Equal(got, want) || p.Snapshots != 2 {
		t.Errorf("snapshots kept %v (%d pruned), want %v", got, p.Snapshots, want)
	}
}

// TestMeasureSitesAndUsage: the sweep measures what each site harvested
// since stores; a person's usage shares each site among its followers.
func TestMeasureSitesAndUsage(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	big, small := testCollection(t, d, "big"), testCollection(t, d, "small")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	text := strings.Repeat("x", 100_000)
	if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run:       Run{SiteID: big.SiteID, CollectionID: big.ID, StartedAt: t0, FinishedAt: t0},
		Snapshots: []Snapshot{{URL: big.SiteURL + "a", ContentHash: hash("a"), Text: []byte(text), FetchedAt: t0}},
		// A long diff is stored compressed: it counts what it takes.
		Changes: []Change{{URL: big.SiteURL + "a", Kind: "updated", Datetime: t0, Diff: text}},
	}); err != nil {
		t.Fatal(err)
	}
	harvestDays(t, d, small, t0, 0, 0)
	for _, f := range []struct{ u, s int64 }{{ann.ID, big.SiteID}, {bob.ID, big.SiteID}, {ann.ID, small.SiteID}} {
		if err := d.Follow(ctx, f.u, f.s); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := d.MeasureSites(ctx, t0); err != nil || n != 2 {
		t.Fatalf("measured %d sites, %v; want both", n, err)
	}
	list, err := d.SitesByStorage(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("sites by storage: %v, %v", list, err)
	}
	bigBytes, smallBytes := list[0].Bytes, list[1].Bytes
	if list[0].Site.ID != big.SiteID || bigBytes < 100_000 || bigBytes > 101_000 || smallBytes <= 0 || smallBytes > 2000 {
		t.Errorf("sites by storage: %s %d bytes, %s %d bytes", list[0].Site.URL, bigBytes, list[1].Site.URL, smallBytes)
	}
	if !slices.Equal(list[0].Followers, []string{"ann", "bob"}) || list[0].MeasuredAt == nil || !list[0].MeasuredAt.Equal(t0) {
		t.Errorf("big: followers %v, measured at %v", list[0].Followers, list[0].MeasuredAt)
	}
	if u, err := d.UsageOf(ctx, ann.ID); err != nil || u.Sites != 2 || u.Bytes != bigBytes/2+smallBytes {
		t.Errorf("ann's usage = %+v, %v; want 2 sites, %d bytes", u, err, bigBytes/2+smallBytes)
	}
	usages, err := d.Usages(ctx)
	if err != nil || usages[bob.ID] != (Usage{Sites: 1, Bytes: bigBytes / 2}) || len(usages) != 2 {
		t.Errorf("usages = %v, %v", usages, err)
	}
	if u, err := d.UsageOf(ctx, testUser(t, d, "cy").ID); err != nil || u != (Usage{}) {
		t.Errorf("usage of someone following nothing = %+v, %v", u, err)
	}

	if n, err := d.MeasureSites(ctx, t0); err != nil || n != 0 {
		t.Errorf("measured %d sites again, %v; want none: nothing was harvested", n, err)
	}
	harvestDays(t, d, small, t0, 1, 1)
	if n, err := d.MeasureSites(ctx, t0.Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("measured %d sites after one was harvested, %v", n, err)
	}
	if size, err := d.FileSize(ctx); err != nil || size < bigBytes {
		t.Errorf("file size %d, %v: less than what the big site stores", size, err)
	}
}
