package feedbuild

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// TestQuietSitesSayWhy: in a person's feed of everything, in both entry
// modes, the entry of a site's first change in four months says so
// before anything else; the entries of a site that changes daily do not.
func TestQuietSitesSayWhy(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	u, err := s.store.CreateUser(ctx, "ann", "x", "anntoken", "")
	if err != nil {
		t.Fatal(err)
	}
	quiet, err := s.store.CreateSite(ctx, db.Site{URL: "https://quiet.example/", InputURL: "https://quiet.example/", Title: "Quiet"})
	if err != nil {
		t.Fatal(err)
	}
	qcols, err := s.store.SyncCollections(ctx, quiet.ID, []db.CollectionSpec{{Protocol: "sitemap", Key: quiet.URL, SourceURL: quiet.URL + "sitemap.xml", Title: "Quiet"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{s.site.ID, quiet.ID} {
		if err := s.store.Follow(ctx, u.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	for d := 10; d >= 1; d-- {
		at := t0.Add(-time.Duration(d) * 24 * time.Hour)
		s.save(t, s.art, at, "", db.Change{URL: artPage + "daily.html", Kind: "updated", Datetime: at, Title: "Daily"})
	}
	s.save(t, qcols[0], t0.Add(-125*24*time.Hour), "", db.Change{URL: quiet.URL + "a.html", Kind: "updated", Datetime: t0.Add(-125 * 24 * time.Hour), Title: "Long ago"})
	s.save(t, qcols[0], t0.Add(-3*time.Hour), "", db.Change{URL: quiet.URL + "a.html", Kind: "updated", Datetime: t0.Add(-3 * time.Hour), Title: "At last"})
	b := s.builder(t, Options{})
	user, err := b.UserSpec(ctx, "anntoken")
	if err != nil {
		t.Fatal(err)
	}
	for _, perPage := range []bool{true, false} {
		var buf bytes.Buffer
		if err := feeds.Write(&buf, build(t, b, user, feeds.Atom, Page{PerPage: perPage}), feeds.Atom); err != nil {
			t.Fatal(err)
		}
		said := 0
		for _, it := range parsed(t, buf.Bytes()).Items {
			if !strings.Contains(it.Content, "First change") {
				continue
			}
			said++
			if !strings.HasPrefix(it.Content, "<p><strong>First change in 4 months.</strong></p>") || !strings.Contains(it.Content+it.Title, "At last") {
				t.Errorf("per page %v: %q says %.120q, want the quiet site's new entry to start with its reason", perPage, it.Title, it.Content)
			}
		}
		if said != 1 {
			t.Errorf("per page %v: %d entries say a site was quiet, want the quiet site's new one", perPage, said)
		}
	}
}
