package web

import (
	"net/http"
	"strings"
	"testing"

	"tidings/opml"
)

// TestBaseURLWithPrefix: behind a proxy at https://example.org/tidings/,
// every absolute URL carries the prefix, whether or not the proxy strips
// it from requests.
func TestBaseURLWithPrefix(t *testing.T) {
	fx := newFixture(t, nil)
	const base = "https://example.org/tidings/"
	s, err := New(fx.store, Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	want := base + public(t, fx.store, "feeds/1.atom")
	for _, path := range []string{public(t, fx.store, "/tidings/feeds/1.atom"), public(t, fx.store, "/feeds/1.atom")} {
		f := feed(t, h, path)
		if f.FeedLink != want {
			t.Errorf("GET %s: self link %q, want %s", path, f.FeedLink, want)
		}
	}
	rec := serve(t, h, "/tidings/add")
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, base+"signin?next=") {
		t.Errorf("signed out GET /tidings/add: %d to %q", rec.Code, loc)
	}
	if got := s.safeNext("/site/1?x=1"); got != base+"site/1?x=1" {
		t.Errorf("safeNext = %q", got)
	}
	session := signIn(t, fx.store, "ann")
	rec = serveAs(t, h, "/tidings/opml", session)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /tidings/opml: %d", rec.Code)
	}
	outlines, _, err := opml.Parse(rec.Body, 1<<20)
	if err != nil || len(outlines) != 2 {
		t.Fatalf("OPML: %v, %v", outlines, err)
	}
	for _, o := range outlines {
		if !strings.HasPrefix(o.XMLURL, base+"feeds/") {
			t.Errorf("OPML feed URL %q lacks the prefix", o.XMLURL)
		}
	}
	page := serveAs(t, h, "/tidings/", session).Body.String()
	if !strings.Contains(page, `href="`+base+`static/style.css"`) || !strings.Contains(page, `value="`+want+`"`) {
		t.Errorf("dashboard links lack the prefix:\n%s", page)
	}
}
