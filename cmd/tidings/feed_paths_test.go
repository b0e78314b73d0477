package main

import (
	"regexp"
	"strconv"
	"testing"

	"tidings/db"
)

var numericFeed = regexp.MustCompile(`(feeds|sites)/(\d+)\b`)

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
	return numericFeed.ReplaceAllStringFunc(s, func(m string) string {
		sub := numericFeed.FindStringSubmatch(m)
		id, _ := strconv.ParseInt(sub[2], 10, 64)
		if sub[1] == "feeds" {
			col, err := store.CollectionByID(t.Context(), id)
			if err != nil {
				t.Fatalf("collection %d: %v", id, err)
			}
			return "feeds/" + col.PublicID
		}
		site, err := store.SiteByID(t.Context(), id)
		if err != nil {
			t.Fatalf("site %d: %v", id, err)
		}
		return "sites/" + site.PublicID
	})
}
