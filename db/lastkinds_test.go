package db

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestLastKinds: the kind of each page's newest change, by page, over
// more pages than one statement binds, other collections' changes left
// out, a page stored nowhere absent, and of two changes at one instant
// the one stored last.
func TestLastKinds(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	other := testCollection(t, d, "gallery")
	t0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	n := withdrawChunk + 7
	var changes []Change
	var urls []string
	for i := range n {
		u := fmt.Sprintf("https://shrine.example/p%d", i)
		urls = append(urls, u)
		changes = append(changes, Change{URL: u, Kind: "created", Datetime: t0.Add(-time.Hour)})
		if i%2 == 1 {
			changes = append(changes, Change{URL: u, Kind: "deleted", Datetime: t0.Add(-time.Minute)})
		}
	}
	// Two changes of one instant: the later stored is the newer.
	tie := "https://shrine.example/tie"
	changes = append(changes, Change{URL: tie, Kind: "created", Datetime: t0}, Change{URL: tie, Kind: "updated", Datetime: t0})
	storeRun(t, d, col, t0, "", changes...)
	// A later deletion in another collection says nothing of this one.
	storeRun(t, d, other, t0, "", Change{URL: urls[0], Kind: "deleted", Datetime: t0})
	missing := "https://shrine.example/never"
	kinds, err := d.LastKinds(ctx, col.ID, append(urls, missing))
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) != n {
		t.Errorf("%d pages in the answer, want %d", len(kinds), n)
	}
	for i, u := range urls {
		want := "created"
		if i%2 == 1 {
			want = "deleted"
		}
		if kinds[u] != want {
			t.Errorf("%s: %q, want %q", u, kinds[u], want)
		}
	}
	if k, _ := d.LastKinds(ctx, col.ID, []string{tie}); k[tie] != "updated" {
		t.Errorf("two changes at one instant: %q, want the one stored last, updated", k[tie])
	}
	if k, ok := kinds[missing]; ok {
		t.Errorf("a page the collection stores nothing of: %q", k)
	}
	if kinds, err := d.LastKinds(ctx, col.ID, nil); err != nil || len(kinds) != 0 {
		t.Errorf("no pages: %v, %v", kinds, err)
	}
}
