package scp

import (
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/internal/scpsite"
)

// TestSnapshotsOfSCPPages: SCP pages carry their content, so their text
// is compared without fetching them.
func TestSnapshotsOfSCPPages(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: harvest.DefaultPageFetches}})
	e.standard()
	e.follow()
	blogSnap := snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour))
	t1 := base.Add(24 * time.Hour)
	e.setNow(t1)
	d1 := deltaAt("/c/blog-d1.scp.zst", "blog", t1.Add(-time.Hour))
	a2 := e.page("/blog/a", "Alpha", t1.Add(-5*time.Hour))
	a2["content"] = []any{
		map[string]any{"type": "heading", "level": 1, "text": "Alpha"},
		map[string]any{"type": "text", "text": "A new  first\nparagraph."},
		map[string]any{"type": "code", "text": "ignored", "code": "x := 1\n\ny := 2"},
	}
	e.site.Set(d1.path, scpsite.Zstd(scpsite.File(meta(d1), scpsite.NoChecksum, a2)))
	e.publish(blogSnap, d1)
	e.harvest()
	got := e.changes("blog")
	// c was created on the first harvest: its opening text.
	changetest.Text(t, got["created /blog/c"][0], "Gamma", db.TextChanged, nil, []string{"Gamma", "Body of Gamma"})
	// a was an update, first seen then: its baseline, now compared.
	if a := got["updated /blog/a"]; len(a) != 2 {
		t.Fatalf("a: %d updates, want 2", len(a))
	} else {
		changetest.Text(t, a[0], "Alpha", db.TextUnknown, nil, nil)
		changetest.Text(t, a[1], "Alpha", db.TextChanged, []string{"Body of Alpha"}, []string{"A new first paragraph.", "x := 1", "y := 2"})
	}
	for _, p := range []string{"/blog/a", "/blog/c"} {
		if n := e.site.Requests(p); n != 0 {
			t.Errorf("%s fetched %d times; its content came with the SCP file", p, n)
		}
	}
}
