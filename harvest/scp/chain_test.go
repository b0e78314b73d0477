package scp

import (
	"context"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/scpsite"
)

// broken returns a page without its description: a fatal error that
// rejects the whole file holding it.
func (e *scpEnv) broken(path string, modified time.Time) scpsite.Page {
	p := e.page(path, "Broken", modified)
	delete(p, "description")
	return p
}

// deltaSince is a blog delta generated at gen covering changes since
// since, offered for a month.
func deltaSince(path string, gen, since time.Time) scpFile {
	d := deltaAt(path, "blog", gen)
	d.since = &since
	d.expires = gen.Add(30 * 24 * time.Hour)
	return d
}

// blogPages are Alpha and Gamma as the standard snapshot lists them.
func (e *scpEnv) blogPages() (a, c scpsite.Page) {
	a = e.page("/blog/a", "Alpha", base.Add(-48*time.Hour))
	a["published"] = base.Add(-40 * 24 * time.Hour).Format(time.RFC3339)
	c = e.page("/blog/c", "Gamma", base.Add(-24*time.Hour))
	c["published"] = c["modified"]
	return a, c
}

// TestSCPRejectedSnapshotHoldsNoDeltaBack: a newer snapshot that is
// rejected does not keep the deltas older than it from being read, and a
// later valid snapshot is read in its turn.
func TestSCPRejectedSnapshotHoldsNoDeltaBack(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	e.follow()
	snap1 := snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour))

	t8 := base.Add(8 * 24 * time.Hour)
	e.setNow(t8)
	a, c := e.blogPages()
	n := e.page("/blog/n", "New", base.Add(7*24*time.Hour))
	snap2 := snapshotAt("/c/blog-snap-2.scp.zst", "blog", t8.Add(-time.Hour))
	e.site.Set(snap2.path, scpsite.Zstd(scpsite.File(meta(snap2), 0, a, c, n, e.broken("/blog/bad", t8.Add(-3*time.Hour)))))
	d1 := deltaSince("/c/blog-d1.scp.zst", t8.Add(-2*time.Hour), snap1.gen)
	e.site.Set(d1.path, scpsite.Zstd(scpsite.File(meta(d1), 0, n)))
	e.publish(snap1, snap2, d1)
	run := harvesttest.Collection(t, e.harvest(), "#blog")
	if !strings.Contains(run.Run.Error, "the snapshot "+e.site.URL+snap2.path+" was rejected") {
		t.Errorf("error %q, want the snapshot's rejection", run.Run.Error)
	}
	if _, ok := e.changes("blog")["created /blog/n"]; !ok || run.Run.Changes != 1 {
		t.Fatalf("the delta older than the rejected snapshot was not read: %d changes", run.Run.Changes)
	}
	done, _ := e.store.Processed(context.Background(), run.Collection.ID)
	if !done[scpDeltaKey(e.site.URL+d1.path, d1.gen)] {
		t.Errorf("processed %v", done)
	}

	// Next time the delta is not read again; the snapshot is tried again.
	e.setNow(t8.Add(time.Hour))
	e.harvest()
	if e.site.Requests(d1.path) != 1 || e.site.Requests(snap2.path) != 2 {
		t.Errorf("requests: delta %d, snapshot %d", e.site.Requests(d1.path), e.site.Requests(snap2.path))
	}

	// A valid snapshot after it is read: Beta, in none, is deleted.
	snap3 := snapshotAt("/c/blog-snap-3.scp.zst", "blog", t8.Add(90*time.Minute))
	e.site.Set(snap3.path, scpsite.Zstd(scpsite.File(meta(snap3), 0, a, c, n)))
	e.publish(snap1, snap2, snap3, d1)
	e.setNow(t8.Add(2 * time.Hour))
	run = harvesttest.Collection(t, e.harvest(), "#blog")
	if run.Run.Error != "" || run.Run.Changes != 1 {
		t.Errorf("valid snapshot: error %q, %d changes", run.Run.Error, run.Run.Changes)
	}
	if _, ok := e.changes("blog")["deleted /blog/b"]; !ok {
		t.Error("Beta was not deleted by the valid snapshot")
	}
}

// TestSCPOneBadPageStopsNothing: a page the site keeps broken rejects
// every file holding it, the deltas and the next snapshot alike (the spec
// makes a missing required field fatal to the file). The files without
// it are still read, and the gap the rejected delta leaves is named.
func TestSCPOneBadPageStopsNothing(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	e.follow()
	snap1 := snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour))
	t1 := base.Add(24 * time.Hour)
	d1 := deltaSince("/c/blog-d1.scp.zst", t1, snap1.gen)
	e.site.Set(d1.path, scpsite.Zstd(scpsite.File(meta(d1), 0,
		e.broken("/blog/bad", t1.Add(-2*time.Hour)), e.page("/blog/q", "Q", t1.Add(-time.Hour)))))
	t2 := t1.Add(24 * time.Hour)
	d2 := deltaSince("/c/blog-d2.scp.zst", t2, t1)
	r := e.page("/blog/r", "R", t2.Add(-time.Hour))
	e.site.Set(d2.path, scpsite.Zstd(scpsite.File(meta(d2), 0, r)))
	e.publish(snap1, d1, d2)
	e.setNow(t2.Add(time.Hour))
	run := harvesttest.Collection(t, e.harvest(), "#blog").Run
	if !strings.Contains(run.Error, "the delta "+e.site.URL+d1.path+" was rejected") || run.Changes != 1 {
		t.Errorf("error %q, %d changes; want d1 rejected and d2 read", run.Error, run.Changes)
	}
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, d2.path+" covers changes since "+t1.Format(time.RFC3339)) ||
		!strings.Contains(w, "may be missing") {
		t.Errorf("warnings %q, want the gap d1 leaves", run.Warnings)
	}

	// The weekly snapshot holds the broken page too: rejected. The delta
	// generated just before it is still read.
	t7 := base.Add(7 * 24 * time.Hour)
	snap2 := snapshotAt("/c/blog-snap-2.scp.zst", "blog", t7)
	e.site.Set(snap2.path, scpsite.Zstd(scpsite.File(meta(snap2), 0,
		e.page("/blog/a", "Alpha", base.Add(-48*time.Hour)), e.broken("/blog/bad", t1.Add(-2*time.Hour)), r)))
	d3 := deltaSince("/c/blog-d3.scp.zst", t7.Add(-time.Hour), t2)
	e.site.Set(d3.path, scpsite.Zstd(scpsite.File(meta(d3), 0, e.page("/blog/s", "S", t7.Add(-2*time.Hour)))))
	e.publish(snap1, snap2, d1, d2, d3)
	e.setNow(t7.Add(2 * time.Hour))
	run = harvesttest.Collection(t, e.harvest(), "#blog").Run
	if !strings.Contains(run.Error, "the snapshot "+e.site.URL+snap2.path+" was rejected") {
		t.Errorf("error %q, want the snapshot rejected", run.Error)
	}
	if _, ok := e.changes("blog")["created /blog/s"]; !ok {
		t.Errorf("the delta before the rejected snapshot was not read (error %q)", run.Error)
	}
	if n := e.site.Requests(d1.path); n != 2 {
		t.Errorf("the rejected delta was requested %d times, want it tried again", n)
	}
}

// TestSCPRepublishedDelta: a delta served again at the same URL with a
// newer generated time is another delta, and is read.
func TestSCPRepublishedDelta(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	e.follow()
	snap1 := snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour))
	t1 := base.Add(24 * time.Hour)
	e.setNow(t1)
	d := deltaSince("/c/blog-today.scp.zst", t1.Add(-2*time.Hour), snap1.gen)
	e.site.Set(d.path, scpsite.Zstd(scpsite.File(meta(d), 0, e.page("/blog/a", "Alpha, again", t1.Add(-3*time.Hour)))))
	e.publish(snap1, d)
	if run := harvesttest.Collection(t, e.harvest(), "#blog").Run; run.Error != "" || run.Changes != 1 {
		t.Fatalf("first version: error %q, %d changes", run.Error, run.Changes)
	}

	again := deltaSince(d.path, t1.Add(2*time.Hour), snap1.gen)
	e.site.Set(d.path, scpsite.Zstd(scpsite.File(meta(again), 0,
		e.page("/blog/a", "Alpha, third", t1.Add(time.Hour)), e.page("/blog/r", "Late", t1.Add(90*time.Minute)))))
	e.publish(snap1, again)
	e.setNow(t1.Add(3 * time.Hour))
	run := harvesttest.Collection(t, e.harvest(), "#blog").Run
	if run.Error != "" || run.Changes != 2 {
		t.Errorf("republished: error %q, %d changes; want Alpha updated and Late created", run.Error, run.Changes)
	}
	if len(run.Warnings) != 0 {
		t.Errorf("warnings %q", run.Warnings)
	}
	e.setNow(t1.Add(4 * time.Hour))
	e.harvest()
	if n := e.site.Requests(d.path); n != 2 {
		t.Errorf("delta requested %d times, want once per version", n)
	}
}

// TestSCPGapReadsTheSnapshot: a delta whose since is after the end of what
// was read leaves a gap. It is named, and the newest snapshot is read to
// fill it as soon as one newer than the gap is offered, whatever the
// snapshot interval.
func TestSCPGapReadsTheSnapshot(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	e.follow()
	snap1 := snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour))
	t3 := base.Add(3 * 24 * time.Hour)
	dg := deltaSince("/c/blog-d3.scp.zst", t3.Add(-time.Hour), t3.Add(-24*time.Hour))
	n := e.page("/blog/n", "New", t3.Add(-2*time.Hour))
	e.site.Set(dg.path, scpsite.Zstd(scpsite.File(meta(dg), 0, n)))
	e.publish(snap1, dg)
	e.setNow(t3)
	run := harvesttest.Collection(t, e.harvest(), "#blog").Run
	if run.Error != "" || run.Changes != 1 {
		t.Fatalf("error %q, %d changes", run.Error, run.Changes)
	}
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, "end at "+snap1.gen.Format(time.RFC3339)) ||
		!strings.Contains(w, "until a newer snapshot is read") {
		t.Errorf("warnings %q, want the gap", run.Warnings)
	}

	// Two hours on, a newer snapshot, well within the weekly interval: it
	// is read, and shows what the missing deltas held (Alpha edited, Beta
	// gone).
	snap2 := snapshotAt("/c/blog-snap-2.scp.zst", "blog", t3.Add(time.Hour))
	_, c := e.blogPages()
	e.site.Set(snap2.path, scpsite.Zstd(scpsite.File(meta(snap2), 0, e.page("/blog/a", "Alpha, edited", base.Add(30*time.Hour)), c, n)))
	e.publish(snap1, snap2, dg)
	e.setNow(t3.Add(2 * time.Hour))
	run = harvesttest.Collection(t, e.harvest(), "#blog").Run
	if run.Error != "" || run.Changes != 2 || e.site.Requests(snap2.path) != 1 {
		t.Errorf("error %q, %d changes, snapshot requested %d times; want it read for Alpha and Beta",
			run.Error, run.Changes, e.site.Requests(snap2.path))
	}
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, "read to fill the gap") {
		t.Errorf("warnings %q", run.Warnings)
	}
	if _, ok := e.changes("blog")["deleted /blog/b"]; !ok {
		t.Error("Beta was not deleted")
	}

	// The next delta follows on from the snapshot: no gap, no snapshot.
	d4 := deltaSince("/c/blog-d4.scp.zst", t3.Add(3*time.Hour), snap2.gen)
	e.site.Set(d4.path, scpsite.Zstd(scpsite.File(meta(d4), 0, e.page("/blog/m", "More", t3.Add(150*time.Minute)))))
	e.publish(snap1, snap2, dg, d4)
	e.setNow(t3.Add(4 * time.Hour))
	run = harvesttest.Collection(t, e.harvest(), "#blog").Run
	if run.Error != "" || run.Changes != 1 || len(run.Warnings) != 0 || e.site.Requests(snap2.path) != 1 {
		t.Errorf("error %q, %d changes, warnings %q, snapshot requested %d times", run.Error, run.Changes, run.Warnings, e.site.Requests(snap2.path))
	}
}

// TestSCPGapWithNewerSnapshotOffered: when the snapshot that fills a gap
// is already offered, it is read in the same harvest.
func TestSCPGapWithNewerSnapshotOffered(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	e.follow()
	snap1 := snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour))
	t3 := base.Add(3 * 24 * time.Hour)
	snap2 := snapshotAt("/c/blog-snap-2.scp.zst", "blog", t3.Add(-2*time.Hour))
	a, _ := e.blogPages()
	e.site.Set(snap2.path, scpsite.Zstd(scpsite.File(meta(snap2), 0, a)))
	dg := deltaSince("/c/blog-d3.scp.zst", t3.Add(-time.Hour), t3.Add(-24*time.Hour))
	e.site.Set(dg.path, scpsite.Zstd(scpsite.File(meta(dg), 0, e.page("/blog/n", "New", t3.Add(-90*time.Minute)))))
	e.publish(snap1, snap2, dg)
	e.setNow(t3)
	run := harvesttest.Collection(t, e.harvest(), "#blog").Run
	if run.Error != "" || e.site.Requests(snap2.path) != 1 {
		t.Fatalf("error %q, snapshot requested %d times", run.Error, e.site.Requests(snap2.path))
	}
	got := e.changes("blog")
	for _, k := range []string{"deleted /blog/b", "deleted /blog/c", "created /blog/n"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %s in %v", k, keys(got))
		}
	}
	if w := strings.Join(run.Warnings, "\n"); !strings.Contains(w, "read to fill the gap") || strings.Contains(w, "may be missing") {
		t.Errorf("warnings %q", run.Warnings)
	}
}

// TestSCPDeltaProcessedByURLBeforeUpgrade: a delta recorded by its URL
// alone (as before deltas were told apart by generated time) is read once
// more, since it may have been republished, and still counts as read up
// to its time: the delta after it leaves no gap.
func TestSCPDeltaProcessedByURLBeforeUpgrade(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	col := harvesttest.Collection(t, e.follow(), "#blog").Collection
	snap1 := snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour))
	t1 := base.Add(24 * time.Hour)
	a, _ := e.blogPages()
	old := deltaSince("/c/blog-old.scp.zst", t1, snap1.gen)
	e.site.Set(old.path, scpsite.Zstd(scpsite.File(meta(old), 0, a)))
	next := deltaSince("/c/blog-next.scp.zst", t1.Add(24*time.Hour), old.gen)
	e.site.Set(next.path, scpsite.Zstd(scpsite.File(meta(next), 0, e.page("/blog/n", "New", t1.Add(time.Hour)))))
	e.publish(snap1, old, next)
	// The state and the processed row as an earlier tidings left them.
	legacy := `{"snapshot":"` + e.site.URL + snap1.path + `","snapshot_generated":"` + snap1.gen.Format(time.RFC3339) +
		`","snapshot_read":"` + base.Format(time.RFC3339) + `"}`
	_, err := e.store.SaveCollectionHarvest(context.Background(), db.CollectionHarvest{
		Run:       db.Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t1, FinishedAt: t1},
		Processed: []string{e.site.URL + old.path}, State: &legacy,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.setNow(t1.Add(25 * time.Hour))
	run := harvesttest.Collection(t, e.harvest(), "#blog").Run
	if run.Error != "" || run.Changes != 1 || len(run.Warnings) != 0 {
		t.Errorf("error %q, %d changes, warnings %q; want New created and no gap", run.Error, run.Changes, run.Warnings)
	}
	done, _ := e.store.Processed(context.Background(), col.ID)
	if e.site.Requests(old.path) != 1 || !done[scpDeltaKey(e.site.URL+old.path, old.gen)] {
		t.Errorf("old delta requested %d times; processed %v", e.site.Requests(old.path), done)
	}
}
