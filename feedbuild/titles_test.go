package feedbuild

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// TestEntryTitlesTellPagesAndSitesApart: two pages of a site that share
// its name as their title get entry titles that differ (by their paths);
// a page with a title of its own keeps it alone; and in a person's feed
// of everything, which mixes sites, every entry names its site, in its
// title and as its author, in each format as gofeed reads it.
func TestEntryTitlesTellPagesAndSitesApart(t *testing.T) {
	render := func(t *testing.T, b *Builder, spec *Spec, format feeds.Format) []byte {
		var buf bytes.Buffer
		if err := feeds.Write(&buf, build(t, b, spec, format, Page{PerPage: true}), format); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
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
		db.Change{URL: "https://rich.example/", Kind: "updated", Datetime: t0.Add(-time.Minute), Title: "Lantern Garden"},
		db.Change{URL: "https://rich.example/about.html", Kind: "updated", Datetime: t0.Add(-2 * time.Minute), Title: "Lantern Garden"},
		db.Change{URL: artPage + "visitors.html", Kind: "updated", Datetime: t0.Add(-3 * time.Minute), Title: "Visitors"})
	b := s.builder(t, Options{})
	col, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, it := range parsed(t, render(t, b, col, feeds.Atom)).Items {
		titles = append(titles, it.Title)
	}
	for _, want := range []string{"Updated: Lantern Garden (/)", "Updated: Lantern Garden (/about.html)", "Updated: Visitors"} {
		if !slices.Contains(titles, want) {
			t.Errorf("the collection's entries are titled %q, want %q among them", titles, want)
		}
	}
	user, err := b.UserSpec(t.Context(), "anntoken")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []feeds.Format{feeds.Atom, feeds.RSS, feeds.JSON} {
		f := parsed(t, render(t, b, user, format))
		pages := 0
		for _, it := range f.Items {
			if !strings.HasPrefix(it.Title, "Updated: ") {
				continue // the "now following" entry names its collection
			}
			pages++
			if !strings.HasSuffix(it.Title, " — Art") {
				t.Errorf("%s: entry %q of the feed of everything does not name its site", format, it.Title)
			}
			if format != feeds.RSS && (len(it.Authors) == 0 || it.Authors[0].Name != "Art") {
				t.Errorf("%s: entry %q has authors %+v, want its site", format, it.Title, it.Authors)
			}
		}
		if pages != 3 {
			t.Errorf("%s: %d page entries in the feed of everything, want 3", format, pages)
		}
	}
}
