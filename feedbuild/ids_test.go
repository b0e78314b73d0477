package feedbuild

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// rowNumber matches a short run of digits between slashes: what an id
// built from a row number would hold. Hashes are 32 hex digits.
var rowNumber = regexp.MustCompile(`/\d{1,12}(/|$)`)

// TestIDsDoNotClash: the same changes in a collection's feed, its site's
// feed and the feed of everything a person follows carry different ids,
// in both entry modes; every feed has an id of its own; and no id holds
// a row number.
func TestIDsDoNotClash(t *testing.T) {
	s := newTestStore(t)
	u, err := s.store.CreateUser(t.Context(), "ann", "x", "anntoken", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Follow(t.Context(), u.ID, s.site.ID); err != nil {
		t.Fatal(err)
	}
	s.save(t, s.art, t0.Add(-time.Hour), "")
	s.save(t, s.art, t0, "",
		db.Change{URL: artPage + "a.html", Kind: "updated", Datetime: t0.Add(-time.Minute)},
		db.Change{URL: artPage + "b.html", Kind: "created", Datetime: t0.Add(-2 * time.Minute)})
	s.save(t, s.blog, t0, "the SCP file returned 500")
	s.save(t, s.blog, t0.Add(5*time.Hour), "the SCP file returned 500")
	b := s.builder(t, Options{FailingAfter: time.Hour})
	col, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	blog, err := b.CollectionSpec(t.Context(), s.blog.ID)
	if err != nil {
		t.Fatal(err)
	}
	site, err := b.SiteSpec(t.Context(), s.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	user, err := b.UserSpec(t.Context(), "anntoken")
	if err != nil {
		t.Fatal(err)
	}

	feedOf := map[string]string{} // feed id -> the feed that has it
	entryIn := map[string]string{}
	for name, spec := range map[string]*Spec{"art": col, "blog": blog, "site": site, "user": user} {
		for _, perPage := range []bool{false, true} {
			f := build(t, b, spec, feeds.Atom, Page{PerPage: perPage})
			which := name + map[bool]string{false: " digests", true: " pages"}[perPage]
			if other, dup := feedOf[f.ID]; dup {
				t.Errorf("%s and %s share the feed id %s", which, other, f.ID)
			}
			feedOf[f.ID] = which
			if len(f.Entries) == 0 {
				t.Errorf("%s has no entries", which)
			}
			for _, e := range f.Entries {
				if rowNumber.MatchString(e.ID) || rowNumber.MatchString(f.ID) {
					t.Errorf("%s: an id holds a row number: feed %s, entry %s", which, f.ID, e.ID)
				}
				scope := strings.TrimSuffix(f.ID, perPageFeed)
				if !strings.HasPrefix(e.ID, scope+"/") {
					t.Errorf("%s: entry id %s is not under the feed's %s", which, e.ID, scope)
				}
				// One entry may be in both modes of one feed (the first
				// harvest's), never in two feeds.
				if other, dup := entryIn[e.ID]; dup && strings.Fields(other)[0] != name {
					t.Errorf("%s and %s share the entry id %s", which, other, e.ID)
				}
				entryIn[e.ID] = which
			}
		}
	}
	if !strings.Contains(site.Meta.ID, ":site/"+s.site.PublicID) || !strings.Contains(col.Meta.ID, ":collection/"+s.art.PublicID) {
		t.Errorf("feed ids %s, %s do not name the public ids", site.Meta.ID, col.Meta.ID)
	}
	if strings.Contains(user.Meta.ID, "anntoken") || strings.Contains(user.Meta.ID, "ann") {
		t.Errorf("the user feed's id %s names the user or the feed's secret", user.Meta.ID)
	}
}

// TestTitlesTellFeedsApart: a site's only collection bears the site's
// name, yet a reader holding the site's feed and the collection's tells
// them apart by title; a digest names the pages it changed.
func TestTitlesTellFeedsApart(t *testing.T) {
	s := newTestStore(t)
	if err := s.store.UpdateSiteSource(t.Context(), s.site.ID, "", "Art"); err != nil {
		t.Fatal(err)
	}
	s.save(t, s.art, t0.Add(-time.Hour), "")
	s.save(t, s.art, t0, "",
		db.Change{URL: artPage + "fox.html", Kind: "updated", Datetime: t0.Add(-2 * time.Minute), Title: "Fox Lantern"},
		db.Change{URL: artPage + "heron.html", Kind: "updated", Datetime: t0.Add(-time.Minute), Title: "Heron Lantern"})
	b := s.builder(t, Options{})
	col, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	site, err := b.SiteSpec(t.Context(), s.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for name, spec := range map[string]*Spec{"collection": col, "site": site} {
		for _, perPage := range []bool{false, true} {
			f := build(t, b, spec, feeds.Atom, Page{PerPage: perPage})
			if other, dup := titles[f.Title]; dup {
				t.Errorf("the %s feed and the %s feed are both titled %q", name, other, f.Title)
			}
			titles[f.Title] = name
			if !perPage && f.Entries[0].Title != "Heron Lantern and Fox Lantern updated on Art" {
				t.Errorf("%s feed: digest titled %q", name, f.Entries[0].Title)
			}
		}
	}
	if col.Meta.Title != "Art" || site.Meta.Title != "Art (all collections)" {
		t.Errorf("titles %q and %q", col.Meta.Title, site.Meta.Title)
	}
}
