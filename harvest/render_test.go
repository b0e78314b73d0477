package harvest_test

import (
	"bytes"
	"testing"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/feeds"
)

// collectionAtom builds and renders the newest Atom document of a
// collection's feed, as readers get it: one digest per harvest run, or
// with perPage one entry per change.
func collectionAtom(t *testing.T, store *db.DB, id int64, perPage bool) string {
	t.Helper()
	b, err := feedbuild.New(store, feedbuild.Options{BaseURL: "http://tidings.test/"})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := b.CollectionSpec(t.Context(), id)
	if err != nil {
		t.Fatalf("feed of collection %d: %v", id, err)
	}
	stamp, err := store.Stamp(t.Context(), spec.Scope)
	if err != nil {
		t.Fatal(err)
	}
	f, err := b.Build(t.Context(), spec, feeds.Atom, feedbuild.Page{PerPage: perPage}, stamp)
	if err != nil {
		t.Fatalf("build the feed of collection %d: %v", id, err)
	}
	var buf bytes.Buffer
	if err := feeds.Write(&buf, f, feeds.Atom); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
