package web

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tidings/db"
	"tidings/internal/feedpaths"
)

var numericPage = regexp.MustCompile(`\b(site|collection)/(\d+)\b`)

// public rewrites the numeric feed and page addresses in s ("feeds/1.atom",
// "/site/2/unfollow") to the public-id ones the store gives them: tests
// think of "site 1", while tidings answers only public ids.
func public(t testing.TB, store *db.DB, s string) string {
	t.Helper()
	s = feedpaths.Public(t, store, s)
	return numericPage.ReplaceAllStringFunc(s, func(m string) string {
		sub := numericPage.FindStringSubmatch(m)
		id, _ := strconv.ParseInt(sub[2], 10, 64)
		if sub[1] == "collection" {
			col, err := store.CollectionByID(t.Context(), id)
			if err != nil {
				t.Fatalf("collection %d: %v", id, err)
			}
			return collectionPath(col)
		}
		site, err := store.SiteByID(t.Context(), id)
		if err != nil {
			t.Fatalf("site %d: %v", id, err)
		}
		return sitePath(site)
	})
}

// TestNumericAddressesAreNotFound: the sequential ids of before public
// ids name nothing, so nobody can count or list the sites and collections
// of a tidings by walking them. A feed at a numeric address answers as
// one that never existed, whoever asks (readers have no session); a page
// does too, but for an admin, whom it sends to the public address.
func TestNumericAddressesAreNotFound(t *testing.T) {
	fx := newFixture(t, nil)
	h := fx.server(t)
	admin := signIn(t, fx.store, "root") // the first account is the admin
	ann := signIn(t, fx.store, "ann")
	who := map[string]string{"nobody": "", "ann": ann, "the admin": admin}
	unknown := serveOnce(t, h, "/feeds/999.atom", "")
	for _, path := range []string{
		"/feeds/1.atom", "/feeds/2.rss", "/feeds/1.json?entries=page", "/feeds/1.atom?before=x",
		"/sites/1.atom", "/sites/1.rss", "/sites/1.json", "/sites/1.atom?entries=page&x=%2F",
	} {
		for name, session := range who {
			rec := serveOnce(t, h, path, session)
			if rec.Code != http.StatusNotFound || rec.Body.String() != unknown.Body.String() || rec.Header().Get("Location") != "" {
				t.Errorf("%s's GET %s: %d to %q, %q; want the 404 of a feed that never existed, %q", name, path, rec.Code, rec.Header().Get("Location"), rec.Body, unknown.Body)
			}
		}
	}

	for _, tc := range []struct{ path, unknown, public string }{
		{"/site/1", "/site/999", public(t, fx.store, "site/1")},
		{"/site/2", "/site/999", ""}, // there is no site 2
		{"/collection/2", "/collection/999", public(t, fx.store, "collection/2")},
		{"/collection/1?x=%2F", "/collection/999", public(t, fx.store, "collection/1") + "?x=%2F"},
	} {
		for _, name := range []string{"nobody", "ann"} {
			rec := serveOnce(t, h, tc.path, who[name])
			never := serveOnce(t, h, tc.unknown, who[name])
			if rec.Code != http.StatusNotFound || never.Code != http.StatusNotFound || rec.Body.String() != never.Body.String() {
				t.Errorf("%s's GET %s: %d, want the 404 of %s (%d):\n%s", name, tc.path, rec.Code, tc.unknown, never.Code, rec.Body)
			}
		}
		rec := serveOnce(t, h, tc.path, admin)
		if tc.public == "" {
			if rec.Code != http.StatusNotFound {
				t.Errorf("the admin's GET %s: %d, want 404", tc.path, rec.Code)
			}
			continue
		}
		if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != testBase+tc.public {
			t.Errorf("the admin's GET %s: %d to %q, want 301 to %s", tc.path, rec.Code, rec.Header().Get("Location"), testBase+tc.public)
		}
	}
	// So is a follower's action on a site named by its number.
	if rec := serveOnce(t, h, "/site/1/unfollow", ann); rec.Code != http.StatusNotFound {
		t.Errorf("ann's GET /site/1/unfollow: %d, want 404", rec.Code)
	}
}

// TestFeedIDsAreOnPublicIDs: feed and entry ids are made of the public
// ids, never of the sequential ones.
func TestFeedIDsAreOnPublicIDs(t *testing.T) {
	fx := newFixture(t, nil)
	h := fx.server(t)
	col, err := fx.store.CollectionByID(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(col.PublicID) != 32 {
		t.Fatalf("public id %q", col.PublicID)
	}
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
}
