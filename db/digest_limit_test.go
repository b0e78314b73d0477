package db

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestDigestCarriesAtMostDigestChanges: a run with more changes than
// DigestChanges loads only the newest, and says what the rest would have
// added; a smaller run in the same page is whole.
func TestDigestCarriesAtMostDigestChanges(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "gallery")
	t0 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	var big []Change
	for i := range DigestChanges + 50 {
		big = append(big, Change{URL: fmt.Sprintf("https://gallery.example/%04d", i%(DigestChanges+10)),
			Kind: "updated", Datetime: t0.Add(time.Duration(i) * time.Second)})
	}
	// The first harvest is the "now following" digest; these are later.
	first := storeRun(t, d, col, t0, "")
	bigRun := storeRun(t, d, col, t0.Add(time.Hour), "", big...)
	small := storeRun(t, d, col, t0.Add(2*time.Hour), "",
		Change{URL: "https://gallery.example/new", Kind: "created", Datetime: t0.Add(90 * time.Minute)},
		Change{URL: "https://gallery.example/0001", Kind: "updated", Datetime: t0.Add(91 * time.Minute)})

	got, err := d.Digests(ctx, Scope{CollectionID: col.ID}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Run.ID != small.ID || got[1].Run.ID != bigRun.ID || got[2].Run.ID != first.ID || !got[2].Following {
		t.Fatalf("digests %+v", got)
	}
	if g := got[0]; len(g.Changes) != 2 || g.Omitted != 0 || g.Pages != 0 || g.Kind != "" {
		t.Errorf("small digest: %d changes, omitted %d, pages %d, kind %q", len(g.Changes), g.Omitted, g.Pages, g.Kind)
	}
	g := got[1]
	if len(g.Changes) != DigestChanges || g.Omitted != 50 || g.Pages != DigestChanges+10 || g.Kind != "updated" {
		t.Fatalf("big digest: %d changes, omitted %d, pages %d, kind %q", len(g.Changes), g.Omitted, g.Pages, g.Kind)
	}
	for i, c := range g.Changes {
		if want := t0.Add(time.Duration(DigestChanges+49-i) * time.Second); !c.Datetime.Equal(want) {
			t.Fatalf("change %d dated %s, want %s: the newest first", i, c.Datetime, want)
		}
	}
}
