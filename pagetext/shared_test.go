package pagetext

import (
	"strings"
	"testing"
)

// TestSharedLines: the lines most pages have are the site's, counted once
// a page however often it repeats them, and left out of a comparison.
func TestSharedLines(t *testing.T) {
	nav := "Home\nGallery\nAbout"
	pages := []string{
		nav + "\nHerons in ink.\n© 2026",
		nav + "\nCranes at dusk.\nCranes at dusk.\n© 2026",
		nav + "\nAbout me.\n© 2026",
		"A page without the menu.",
	}
	s := NewSharedLines()
	for _, p := range pages {
		s.Add(p)
	}
	if s.Pages() != 4 {
		t.Fatalf("%d pages counted", s.Pages())
	}
	half := s.Lines(func(have, pages int) bool { return have*2 > pages })
	for _, l := range []string{"Home", "Gallery", "About", "© 2026"} {
		if !half.Has(l) {
			t.Errorf("%q, on 3 pages of 4, is not shared", l)
		}
	}
	if half.Has("Cranes at dusk.") || half.Len() != 4 {
		t.Errorf("shared lines: %d, want the menu and the footer alone", half.Len())
	}
	d := CompareBesides(pages[0], "Gallery\n"+strings.Replace(pages[0], "About\n", "", 1), half)
	if !d.Unchanged() {
		t.Errorf("a change in the shared lines alone compares as %+v", d)
	}
	d = CompareBesides(pages[0], strings.Replace(pages[0], "Herons", "Egrets", 1), half)
	if d.Unchanged() {
		t.Error("an edit of the page's own text compares as unchanged")
	}
	none := s.Lines(func(have, pages int) bool { return have > pages })
	if u := half.Union(none); u.Len() != half.Len() {
		t.Errorf("union with an empty set holds %d lines", u.Len())
	}
	if got := none.Drop("a\nb"); got != "a\nb" {
		t.Errorf("an empty set dropped lines: %q", got)
	}
}

// TestSharedLinesCountsOnlyTheEnds: a page of many lines costs no more
// than its ends, where the navigation and the footer are.
func TestSharedLinesCountsOnlyTheEnds(t *testing.T) {
	var b strings.Builder
	for i := range 10_000 {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%50))
		b.WriteByte('\n')
	}
	s := NewSharedLines()
	s.Add(b.String())
	if n := len(s.count); n > 2*sharedLineEnds {
		t.Errorf("%d lines counted, want at most %d", n, 2*sharedLineEnds)
	}
}
