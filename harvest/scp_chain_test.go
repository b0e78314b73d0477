package harvest

import (
	"context"
	"strings"
	"testing"
	"time"

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
	e := newSCPEnv(t, Options{})
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
	run := collectionRun(t, e.harvest(), "#blog")
	if !strings.Contains(run.Run.Error, "the snapshot "+e.site.URL+snap2.path+" was rejected") {
		t.Errorf("error %q, want the snapshot's rejection", run.Run.Error)
	}
	if _, ok := e.changes("blog")["created /blog/n"]; !ok || run.Run.Changes != 1 {
		t.Fatalf("the delta older than the rejected snapshot was not read: %d changes", run.Run.Changes)
	}
	done, _ := e.store.Processed(context.Background(), run.Collection.ID)
	if !done[e.site.URL+d1.path] {
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
	run = collectionRun(t, e.harvest(), "#blog")
	if run.Run.Error != "" || run.Run.Changes != 1 {
		t.Errorf("valid snapshot: error %q, %d changes", run.Run.Error, run.Run.Changes)
	}
	if _, ok := e.changes("blog")["deleted /blog/b"]; !ok {
		t.Error("Beta was not deleted by the valid snapshot")
	}
}
