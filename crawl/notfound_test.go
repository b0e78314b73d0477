package crawl

import "testing"

// TestNotFoundShape: two readings of a "not found" page whose words
// vary give a shape that, less the lines of a page of the site,
// recognises a third reading and no page of the site, even one of the
// same title; a shape made only of the site's lines tells nothing.
func TestNotFoundShape(t *testing.T) {
	s := ShapeOf("Fern's garden", "Fern's garden\nWe looked everywhere\nmoss fern rain\nGrown by hand",
		"Fern's garden", "Fern's garden\nWe looked everywhere\nstone leaf\nGrown by hand")
	if s == nil || len(s.Lines) != 3 {
		t.Fatalf("shape %+v, want the three lines both readings have", s)
	}
	if !s.Refine("Fern's garden\nWelcome\nGrown by hand") || len(s.Lines) != 1 || s.Lines[0] != "We looked everywhere" {
		t.Fatalf("refined shape %+v, want the one line of its own", s)
	}
	if !s.Is("Fern's garden", "Fern's garden\nWe looked everywhere\nthorn vine\nGrown by hand") {
		t.Error("a third reading is not recognised")
	}
	if s.Is("Fern's garden", "Fern's garden\nThe roses\nGrown by hand") || s.Is("Lost", "We looked everywhere") {
		t.Error("a page of the site, or another title, is taken for the not found page")
	}
	if ShapeOf("A", "x", "B", "x") != nil || ShapeOf("A", "x\ny", "A", "z") != nil {
		t.Error("readings of two titles, or of no line in common, gave a shape")
	}
	chrome := ShapeOf("G", "Fern's garden\nrandom one", "G", "Fern's garden\nrandom two")
	if chrome.Refine("Fern's garden\nWelcome") || chrome.Is("G", "Fern's garden\nWelcome") {
		t.Error("a shape of the site's lines alone recognises its pages")
	}
}
