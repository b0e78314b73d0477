package main

import (
	"testing"

	"tidings/db"
	"tidings/internal/feedpaths"
)

// public rewrites the numeric feed addresses in s ("feeds/1.atom",
// "sites/2") to the public-id ones the database at dbPath gives those
// feeds, for tests that only need "the feed of collection 1".
func public(t testing.TB, dbPath, s string) string {
	t.Helper()
	store, err := db.Open(t.Context(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	return feedpaths.Public(t, store, s)
}
