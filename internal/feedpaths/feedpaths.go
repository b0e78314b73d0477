// Package feedpaths helps tests name feeds: they think of "the feed of
// collection 1", while tidings serves feeds at random public ids.
package feedpaths

import (
	"regexp"
	"strconv"
	"testing"

	"tidings/db"
)

var numericFeed = regexp.MustCompile(`(feeds|sites)/(\d+)\b`)

// Public rewrites the numeric feed addresses in s ("/feeds/1.atom",
// "sites/2") to the public-id ones the store gives those feeds.
func Public(t testing.TB, store *db.DB, s string) string {
	t.Helper()
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
