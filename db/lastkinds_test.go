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

// TestStoredChanges: which of a list of changes the collection stores,
// by page, kind and time (to the microsecond, as stored), over more
// pages than one statement binds, another collection's left out.
func TestStoredChanges(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	other := testCollection(t, d, "gallery")
	t0 := time.Date(2026, 9, 1, 0, 0, 0, 123456000, time.UTC)
	var stored, asked []Change
	var want []bool
	for i := range withdrawChunk + 3 {
		c := Change{URL: fmt.Sprintf("https://shrine.example/p%d", i), Kind: "updated", Datetime: t0.Add(-time.Duration(i) * time.Minute)}
		stored = append(stored, c)
		asked = append(asked, c)
		want = append(want, true)
	}
	storeRun(t, d, col, t0, "", stored...)
	elsewhere := Change{URL: "https://shrine.example/g", Kind: "created", Datetime: t0}
	storeRun(t, d, other, t0, "", elsewhere)
	p0 := stored[0]
	asked = append(asked,
		Change{URL: p0.URL, Kind: "deleted", Datetime: p0.Datetime},                // another kind
		Change{URL: p0.URL, Kind: p0.Kind, Datetime: p0.Datetime.Add(time.Second)}, // another time
		Change{URL: p0.URL, Kind: p0.Kind, Datetime: p0.Datetime.Add(789)},         // the same microsecond
		elsewhere,
		Change{URL: "https://shrine.example/never", Kind: "created", Datetime: t0},
	)
	want = append(want, false, false, true, false, false)
	got, err := d.StoredChanges(ctx, col.ID, asked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d answers for %d changes", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s %s %s: stored %v, want %v", asked[i].URL, asked[i].Kind, asked[i].Datetime.Format(time.RFC3339Nano), got[i], want[i])
		}
	}
}
