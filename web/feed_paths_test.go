package web

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/internal/feedpaths"
)

// public rewrites the numeric feed addresses in s to the public-id ones
// the store gives those feeds.
func public(t testing.TB, store *db.DB, s string) string {
	t.Helper()
	return feedpaths.Public(t, store, s)
}

// TestOldFeedAddressesRedirect: the numeric feed addresses of before
// public ids answer 301 to the public one, in every format and with the
// query kept, so readers update what they store; the feed there is the
// same document.
func TestOldFeedAddressesRedirect(t *testing.T) {
	fx := newFixture(t, nil)
	h := fx.server(t)
	col, err := fx.store.CollectionByID(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	site, err := fx.store.SiteByID(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(col.PublicID) != 32 || len(site.PublicID) != 32 {
		t.Fatalf("public ids %q, %q", col.PublicID, site.PublicID)
	}
	for old, want := range map[string]string{
		"/feeds/1.atom":                    "feeds/" + col.PublicID + ".atom",
		"/feeds/1.rss":                     "feeds/" + col.PublicID + ".rss",
		"/feeds/1.json?entries=page":       "feeds/" + col.PublicID + ".json?entries=page",
		"/sites/1.atom?entries=page&x=%2F": "sites/" + site.PublicID + ".atom?entries=page&x=%2F",
		"/sites/1.rss":                     "sites/" + site.PublicID + ".rss",
		"/sites/1.json":                    "sites/" + site.PublicID + ".json",
	} {
		rec := serveOnce(t, h, old, "")
		if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != testBase+want {
			t.Errorf("GET %s: %d to %q, want 301 to %q", old, rec.Code, rec.Header().Get("Location"), testBase+want)
		}
	}
	// Feed and entry ids are on the public ids, whichever address the
	// reader asked: a reader that follows the redirect sees the same
	// entries.
	f := feed(t, h, "/feeds/"+col.PublicID+".atom")
	if f.FeedLink != testBase+"feeds/"+col.PublicID+".atom" {
		t.Errorf("self link %q", f.FeedLink)
	}
	ids := feedIDs(t, h, "/feeds/"+col.PublicID+".atom")
	if !strings.HasSuffix(ids[0], ":collection/"+col.PublicID) || len(ids) < 2 {
		t.Errorf("feed id %q is not on the public id (%d ids)", ids[0], len(ids))
	}
	for _, id := range ids[1:] {
		if !strings.Contains(id, ":collection/"+col.PublicID+"/") {
			t.Errorf("entry id %q is not on the public id", id)
		}
	}
	if got := feedIDs(t, h, "/feeds/1.atom"); !slices.Equal(got, ids) {
		t.Errorf("ids through the old address %q, want %q", got, ids)
	}
}
