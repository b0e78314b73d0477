package worker

import (
	"context"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
)

// The retention benchmarks of issue 25: a site whose pages are rewritten
// whole at every harvest, harvested once a day and swept after each
// harvest, as serve's scheduler does. Run them with
//
//	go test -run '^$' -bench Retention -benchtime 1x ./worker/
//
// (cmd/tidings-bench --only 10 runs them and writes their rows).
const (
	benchPages    = 100
	benchPageText = 14_000 // bytes of text a page, as the site
	benchHarvests = 6
)

// BenchmarkRetentionDefault: six harvests of a 100-page site rewritten
// whole each day, with the default retention, which keeps them all.
func BenchmarkRetentionDefault(b *testing.B) { benchRetention(b, Retention{}) }

// BenchmarkRetentionTight: the same with a tight retention, a day (the
// least --keep-changes-for takes) and each collection's newest 100
// changes (one harvest's).
func BenchmarkRetentionTight(b *testing.B) {
	benchRetention(b, Retention{KeepChangesFor: 24 * time.Hour, KeepChanges: benchPages})
}

// BenchmarkRetentionPartTight: the same site with the same tight
// retention, but a third of each page's lines rewritten each day (one
// block of ten lines in three), the rest kept: each change keeps its
// diff, smaller than the page's text, which a harvest then stores
// besides its snapshots.
func BenchmarkRetentionPartTight(b *testing.B) {
	benchRetentionOf(b, Retention{KeepChangesFor: 24 * time.Hour, KeepChanges: benchPages}, 3)
}

// BenchmarkRetentionPartDefault: a third of each page rewritten each
// day, with the default retention, which keeps every harvest.
func BenchmarkRetentionPartDefault(b *testing.B) { benchRetentionOf(b, Retention{}, 3) }

// benchRetention reports the database's growth a harvest from the third
// on (MB/harvest), its size after the six (MB), and what one change
// stores of its diff (diff-B/change, the median is the typical one).
func benchRetention(b *testing.B, r Retention) { benchRetentionOf(b, r, 0) }

// benchRetentionOf is benchRetention of a site that rewrites one line in
// part of its pages each day (all of them when part is 0).
func benchRetentionOf(b *testing.B, r Retention, part int) {
	for range b.N {
		ctx := context.Background()
		// After the collection is created, by the real clock: changes
		// dated before it would be stored as already seen.
		now := time.Now().UTC().Truncate(time.Second)
		store, h, _ := changingHarvester(b, &now, benchPages)
		site := newChangingSite(b, benchPages, benchPageText, false)
		site.part = part
		var sizes []int64
		for k := range benchHarvests {
			if k > 0 {
				now = now.Add(24 * time.Hour)
			}
			site.rewrite(now)
			harvestChanging(b, store, h, site, k == 0)
			if _, err := Sweep(ctx, store, now, r); err != nil {
				b.Fatal(err)
			}
			size, err := store.FileSize(ctx)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, size)
		}
		b.ReportMetric(float64(sizes[benchHarvests-1]-sizes[1])/float64(benchHarvests-2)/1e6, "MB/harvest")
		b.ReportMetric(float64(sizes[benchHarvests-1])/1e6, "MB")
		b.ReportMetric(float64(medianDiff(b, store)), "diff-B/change")
	}
}

// BenchmarkRetentionReplacedPage: a page of 256 KB of text that
// compresses little, replaced by another: what the harvest that finds
// the replacement adds to the database (KB-stored), what its change
// stores of its diff (diff-B), and its snapshot (snapshot-KB), which
// takes the place of the page's previous one.
func BenchmarkRetentionReplacedPage(b *testing.B) {
	for range b.N {
		ctx := context.Background()
		now := time.Now().UTC().Truncate(time.Second)
		store, h, _ := changingHarvester(b, &now, 1)
		// Just under --snapshot-max-text (256 KiB), so that all of it is
		// compared.
		site := newChangingSite(b, 1, 256<<10-200, true)
		site.rewrite(now)
		harvestChanging(b, store, h, site, true)
		before, err := store.FileSize(ctx)
		if err != nil {
			b.Fatal(err)
		}
		now = now.Add(24 * time.Hour)
		site.rewrite(now)
		harvestChanging(b, store, h, site, false)
		after, err := store.FileSize(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var diff, snap int64
		err = store.ExportChanges(ctx, db.ExportFilter{}, func(c db.ExportedChange) error {
			if c.Kind == "updated" {
				diff = int64(len(c.Diff))
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		snaps, err := store.Snapshots(ctx, 1, []string{site.srv.URL + "/p/0"})
		if err != nil || len(snaps) != 1 {
			b.Fatalf("the page's snapshot: %v, %v", snaps, err)
		}
		for _, s := range snaps {
			snap = int64(len(s.Text))
		}
		b.ReportMetric(float64(after-before)/1e3, "KB-stored")
		b.ReportMetric(float64(diff), "diff-B")
		b.ReportMetric(float64(snap)/1e3, "snapshot-KB")
	}
}

// harvestChanging follows the site (first) or harvests it again, failing
// on an error or a warning: every page must be read and compared.
func harvestChanging(tb testing.TB, store *db.DB, h *harvest.Harvester, site *changingSite, first bool) {
	tb.Helper()
	ctx := context.Background()
	var rep *harvest.SiteReport
	var err error
	if first {
		rep, err = h.Follow(ctx, site.URL())
	} else {
		var s db.Site
		if s, err = store.SiteByURL(ctx, site.URL()); err == nil {
			rep, err = h.HarvestSite(ctx, s)
		}
	}
	if err != nil {
		tb.Fatal(err)
	}
	for _, c := range rep.Collections {
		if c.Run.Error != "" || len(c.Run.Warnings) > 0 || c.Run.Changes != site.pages {
			tb.Fatalf("harvest: %d changes, error %q, warnings %q", c.Run.Changes, c.Run.Error, c.Run.Warnings)
		}
	}
}

// medianDiff is the median size of the stored diffs of updated pages.
func medianDiff(tb testing.TB, store *db.DB) int {
	tb.Helper()
	var sizes []int
	err := store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		if c.Kind == "updated" {
			sizes = append(sizes, len(c.Diff))
		}
		return nil
	})
	if err != nil || len(sizes) == 0 {
		tb.Fatalf("no updated changes: %v", err)
	}
	for i := range sizes {
		for j := i + 1; j < len(sizes); j++ {
			if sizes[j] < sizes[i] {
				sizes[i], sizes[j] = sizes[j], sizes[i]
			}
		}
	}
	return sizes[len(sizes)/2]
}
