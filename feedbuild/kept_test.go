package feedbuild

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// allPages follows a feed's next links from its newest document and
// returns every entry, page after page, and the last document.
func allPages(t *testing.T, b *Builder, spec *Spec, pg Page) ([]feeds.Entry, *feeds.Feed) {
	t.Helper()
	var all []feeds.Entry
	for docs := 1; ; docs++ {
		f := build(t, b, spec, feeds.Atom, pg)
		all = append(all, f.Entries...)
		if f.NextURL == "" {
			return all, f
		}
		if docs > 50 {
			t.Fatal("no last page")
		}
		next, err := url.Parse(f.NextURL)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := ParseCursor(next.Query().Get("before"))
		if !ok {
			t.Fatalf("next %q has no cursor", f.NextURL)
		}
		pg.Before = &c
	}
}

// TestKeptHistoryEndsTheFeed: once the retention sweep pruned a
// collection, its feeds end with an entry saying older changes are not
// kept, dated by the newest change deleted: the last of its last page,
// in both entry modes and in its site's feed, under one id however far
// later sweeps go; every format renders it.
func TestKeptHistoryEndsTheFeed(t *testing.T) {
	s := newTestStore(t)
	day := func(n int) time.Time { return t0.Add(time.Duration(n) * 24 * time.Hour) }
	for n := range 30 {
		s.save(t, s.art, day(n), "", db.Change{URL: fmt.Sprintf("https://rich.example/art/%02d.html", n), Kind: "updated", Datetime: day(n)})
	}
	s.save(t, s.blog, day(3), "", db.Change{URL: "https://rich.example/blog/a.html", Kind: "created", Datetime: day(3)})
	b := s.builder(t, Options{FeedEntries: 4})
	spec, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	if all, _ := allPages(t, b, spec, Page{PerPage: true}); strings.Contains(all[len(all)-1].Title, "not kept") {
		t.Fatalf("a feed never pruned says its history is not kept")
	}
	var id string
	for _, until := range []int{19, 24} {
		if _, err := s.store.PruneHistory(t.Context(), db.Retention{Before: day(until + 1), Keep: 5}); err != nil {
			t.Fatal(err)
		}
		if spec, err = b.CollectionSpec(t.Context(), s.art.ID); err != nil {
			t.Fatal(err)
		}
		for _, perPage := range []bool{false, true} {
			all, last := allPages(t, b, spec, Page{PerPage: perPage})
			end := all[len(all)-1]
			if end.Title != "Older changes of Art are not kept" || !end.Updated.Equal(day(until)) ||
				last.Entries[len(last.Entries)-1].ID != end.ID {
				t.Fatalf("pruned until day %d, per page %v: the feed ends with %q of %v", until, perPage, end.Title, end.Updated)
			}
			if want := 29 - until; len(all) != want+1 {
				t.Errorf("pruned until day %d, per page %v: %d entries, want the %d changes kept and the end", until, perPage, len(all), want)
			}
			if !strings.Contains(end.ContentHTML, day(until).Format("2 Jan 2006")) || end.Link != testBase+"collection/"+s.art.PublicID {
				t.Errorf("the end entry: %q, link %q", end.ContentHTML, end.Link)
			}
			if id != "" && end.ID != id {
				t.Errorf("the end entry's id moved: %s, was %s", end.ID, id)
			}
			id = end.ID
			for _, format := range []feeds.Format{feeds.Atom, feeds.RSS, feeds.JSON} {
				if err := feeds.Write(&bytes.Buffer{}, last, format); err != nil {
					t.Errorf("%v: %v", format, err)
				}
			}
		}
	}
	site, err := b.SiteSpec(t.Context(), s.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := allPages(t, b, site, Page{PerPage: true})
	ends := 0
	for _, e := range all {
		if strings.HasSuffix(e.Title, "are not kept") {
			ends++
		}
	}
	if ends != 1 || all[len(all)-1].Title == "Older changes of Art are not kept" {
		t.Errorf("site feed: %d end entries, last entry %q; want one, before the blog's older change", ends, all[len(all)-1].Title)
	}
}
