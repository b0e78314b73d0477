package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestFeedsOfUnfollowedSiteAreGone: once the last follower leaves, the
// site's feeds answer 410 Gone, even from the feed cache, and still do
// after its history is deleted; following it again brings them back.
func TestFeedsOfUnfollowedSiteAreGone(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	a := newUIApp(t, fx.store, Options{})
	ann := a.signedIn(t, signIn(t, fx.store, "ann"))
	site, err := fx.store.SiteByURL(t.Context(), fx.site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	var feeds []string
	for _, p := range []string{"/feeds/1.atom", "/feeds/2.json", "/sites/1.rss", "/feeds/1.atom?entries=page"} {
		feeds = append(feeds, public(t, fx.store, p))
	}
	for _, p := range feeds {
		for range 2 { // the second from the feed cache
			if rec := serve(t, a.h, p); rec.Code != http.StatusOK {
				t.Fatalf("GET %s while followed: %d", p, rec.Code)
			}
		}
	}

	ann.get("/site/1")
	location(t, ann.post("/site/1/unfollow", nil))
	gone := func(when string) {
		t.Helper()
		for _, p := range append(feeds, public(t, fx.store, "/feeds/1.atom?before=x")) {
			rec := serve(t, a.h, p)
			body := rec.Body.String()
			if rec.Code != http.StatusGone || !strings.Contains(body, "This feed has ended: nobody on this tidings has followed "+fx.site.URL+"/ since") {
				t.Errorf("GET %s %s: %d\n%s", p, when, rec.Code, body)
			}
		}
	}
	gone("after the last follower left")

	s, err := fx.store.SiteByID(t.Context(), site.ID)
	if err != nil || s.UnfollowedAt == nil {
		t.Fatalf("site after unfollowing: %+v, %v", s, err)
	}
	if n, err := fx.store.DeleteUnfollowedHistory(t.Context(), s.UnfollowedAt.Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("delete the history: %d, %v", n, err)
	}
	gone("after its history was deleted")
	for _, p := range []string{"/feeds/999.atom", "/feeds/0123456789abcdef0123456789abcdef.atom", "/sites/0123456789abcdef0123456789abcdef.rss"} {
		if rec := serve(t, a.h, p); rec.Code != http.StatusNotFound {
			t.Errorf("a feed that never was, %s: %d", p, rec.Code)
		}
	}

	ann.get("/add")
	if loc := location(t, ann.post("/add", url.Values{"url": {fx.site.URL}})); loc != testBase+sitePathOf(t, fx.store, 1)+"?followed=1" {
		t.Fatalf("following again went to %s", loc)
	}
	for _, p := range feeds {
		if rec := serve(t, a.h, p); rec.Code != http.StatusOK {
			t.Errorf("GET %s once followed again: %d", p, rec.Code)
		}
	}
	if due, _ := fx.store.DueSites(t.Context(), time.Now()); len(due) != 1 || due[0].ID != site.ID {
		t.Errorf("due once followed again: %+v", due)
	}
}
