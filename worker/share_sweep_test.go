package worker

import (
	"context"
	"testing"
	"time"

	"tidings/db"
)

// TestSweepKeepsAChurningSiteWithinItsShare: a site whose pages change
// whole at every harvest, swept after each as serve's scheduler does,
// passes its share on the third; from then on each sweep brings it back
// within the share by deleting its oldest changes, the newest harvest's
// changes all stay, each harvest still compares every page with its
// snapshot, and the feed says where its history ends.
func TestSweepKeepsAChurningSiteWithinItsShare(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Second)
	now := t0
	const pages = 10
	store, h, _ := changingHarvester(t, &now, pages)
	site := newChangingSite(t, pages, 3000, true)
	// The default share until two harvests have been measured: then one
	// that two harvests fit and a third does not. Each collection keeps
	// its newest harvest's changes whatever the share.
	r := Retention{KeepChanges: pages}
	var perHarvest int64
	for k := range 8 {
		now = t0.Add(time.Duration(k) * 24 * time.Hour)
		site.rewrite(now)
		harvestChanging(t, store, h, site, k == 0)
		if k == 1 {
			// What the first two harvests stored, less a little: the
			// third passes it.
			if _, err := store.MeasureSites(ctx, now); err != nil {
				t.Fatal(err)
			}
			perHarvest = storedOf(t, store) / 2
			r.SiteShare = storedOf(t, store) + perHarvest/2
		}
		sw, err := Sweep(ctx, store, now, r)
		if err != nil {
			t.Fatal(err)
		}
		if k < 2 {
			continue
		}
		if sw.Share.Sites != 1 || sw.Share.Over != 0 {
			t.Errorf("sweep %d: %+v, want the site pruned back within its share", k, sw.Share)
		}
		if got := storedOf(t, store); got > r.SiteShare {
			t.Errorf("sweep %d: the site stores %d bytes, past its share of %d", k, got, r.SiteShare)
		}
	}
	cols, err := store.Collections(ctx, db.CollectionFilter{})
	if err != nil || len(cols) != 1 {
		t.Fatalf("collections: %v, %v", cols, err)
	}
	col := cols[0]
	if col.PrunedUntil == nil || !col.PrunedUntil.Before(now) || col.Changes < pages {
		t.Errorf("%d changes kept, pruned until %v; want the newest harvest's %d and older ones gone", col.Changes, col.PrunedUntil, pages)
	}
	newest, err := store.FeedChanges(ctx, db.Scope{CollectionID: col.ID}, pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range newest {
		if !c.Datetime.Equal(now) || c.TextChange != db.TextChanged || c.Diff == "" {
			t.Errorf("a newest change: %s at %v, %v, %d bytes of diff; want the last harvest's, compared with its snapshot",
				c.URL, c.Datetime, c.TextChange, len(c.Diff))
		}
	}
	if cut, err := store.ShareCutOf(ctx, col.SiteID); err != nil || cut.Share != r.SiteShare || !cut.At.Equal(now) {
		t.Errorf("the cut recorded: %+v, %v", cut, err)
	}
}

// storedOf is what the one site of store stores, as last measured.
func storedOf(t testing.TB, store *db.DB) int64 {
	t.Helper()
	list, err := store.SitesByStorage(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("sites by storage: %v, %v", list, err)
	}
	return list[0].Bytes
}

// The share benchmark of issue 38: a site of 200 pages that change whole
// at every harvest (text that compresses little), harvested and swept
// shareHarvests times with a share of shareBytes. Run it with
//
//	go test -run '^$' -bench ShareChurn -benchtime 1x ./worker/
//
// (cmd/tidings-bench --only 7 runs it and writes its row).
const (
	sharePages    = 200
	sharePageText = 7_000
	shareHarvests = 24
	shareBytes    = 8 << 20
)

// BenchmarkShareChurn reports what the first harvest stores (MB-first:
// the pages' snapshots and their changes) and what each next one adds
// before any pruning (MB/harvest), the most the site stored after a sweep (max-stored-MB,
// against share-MB), the database file after the first harvest the share
// pruned and after the last (file-MB-first-cut, file-MB), the sweeps that
// pruned, and the harvests' changes still kept at the end.
func BenchmarkShareChurn(b *testing.B) {
	for range b.N {
		ctx := context.Background()
		now := time.Now().UTC().Truncate(time.Second)
		store, h, _ := changingHarvester(b, &now, sharePages)
		site := newChangingSite(b, sharePages, sharePageText, true)
		r := Retention{SiteShare: shareBytes}
		var first, growth, most, fileAtCut int64
		cuts := 0
		for k := range shareHarvests {
			if k > 0 {
				now = now.Add(24 * time.Hour)
			}
			site.rewrite(now)
			harvestChanging(b, store, h, site, k == 0)
			sw, err := Sweep(ctx, store, now, r)
			if err != nil {
				b.Fatal(err)
			}
			stored := storedOf(b, store)
			switch k {
			case 0:
				first = stored
			case 1:
				growth = stored - first
			}
			most = max(most, stored)
			if sw.Share.Sites > 0 {
				if cuts++; cuts == 1 {
					fileAtCut = fileSize(b, store)
				}
			}
		}
		kept := changesKept(b, store)
		b.ReportMetric(float64(first)/1e6, "MB-first")
		b.ReportMetric(float64(growth)/1e6, "MB/harvest")
		b.ReportMetric(float64(most)/1e6, "max-stored-MB")
		b.ReportMetric(float64(shareBytes)/1e6, "share-MB")
		b.ReportMetric(float64(fileAtCut)/1e6, "file-MB-first-cut")
		b.ReportMetric(float64(fileSize(b, store))/1e6, "file-MB")
		b.ReportMetric(float64(cuts), "cuts")
		b.ReportMetric(shareHarvests, "harvests")
		b.ReportMetric(float64(kept)/sharePages, "harvests-kept")
	}
}

func fileSize(tb testing.TB, store *db.DB) int64 {
	tb.Helper()
	n, err := store.FileSize(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// changesKept counts the changes the site's one collection keeps.
func changesKept(tb testing.TB, store *db.DB) int {
	tb.Helper()
	cols, err := store.Collections(context.Background(), db.CollectionFilter{})
	if err != nil || len(cols) != 1 {
		tb.Fatalf("collections: %v, %v", cols, err)
	}
	return cols[0].Changes
}
