// Package harvesttest holds what the tests of the harvest core and of
// each source's adapter share: a harvester over a real database file and
// a client that may fetch from loopback, the sites they follow (the
// ResourceSync fixture site, sites that send no validators), what a
// harvest stored, and a collection's feed as readers get it.
package harvesttest

import (
	"bytes"
	"context"
	"testing"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/feeds"
	"tidings/fetch"
	"tidings/harvest"
)

// New opens a fresh database (of the engine Target picks for t) and a
// harvester over it whose client may fetch from loopback, for the tests'
// own sites.
func New(t testing.TB, o harvest.Options) (*db.DB, *harvest.Harvester) {
	t.Helper()
	store, err := db.Open(context.Background(), Target(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	return store, harvest.New(client, store, o)
}

// CollectionAtom builds and renders the newest Atom document of a
// collection's feed, as readers get it: one digest per harvest run, or
// with perPage one entry per change.
func CollectionAtom(t testing.TB, store *db.DB, id int64, perPage bool) string {
	t.Helper()
	ctx := context.Background()
	b, err := feedbuild.New(store, feedbuild.Options{BaseURL: "http://tidings.test/"})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := b.CollectionSpec(ctx, id)
	if err != nil {
		t.Fatalf("feed of collection %d: %v", id, err)
	}
	stamp, err := store.Stamp(ctx, spec.Scope)
	if err != nil {
		t.Fatal(err)
	}
	f, err := b.Build(ctx, spec, feeds.Atom, feedbuild.Page{PerPage: perPage}, stamp)
	if err != nil {
		t.Fatalf("build the feed of collection %d: %v", id, err)
	}
	var buf bytes.Buffer
	if err := feeds.Write(&buf, f, feeds.Atom); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Warnings lists a site harvest's warnings, each collection's error
// among them as "error: …".
func Warnings(rep *harvest.SiteReport) []string {
	var w []string
	for _, c := range rep.Collections {
		w = append(w, c.Run.Warnings...)
		if c.Run.Error != "" {
			w = append(w, "error: "+c.Run.Error)
		}
	}
	return w
}
