package pagetext

import (
	"strings"
	"testing"
)

// TestListing: a home page that gained a new post's title and summary
// and lost the oldest post's, and a post that gained a "Next:" link, are
// listings of the new post; a page that gained a sentence of its own
// about it, or whose words only happen to be the new post's, is not.
func TestListing(t *testing.T) {
	post := Named{Title: "A compost calculator", Texts: []string{"A compost calculator\nParsnip now weighs your compost heap.\nTags: features, soil"}}
	n := &Noise{}
	n.AddTitles("Raised beds support", "Our autumn sprint", "A compost calculator")
	lines := func(l ...string) string { return strings.Join(l, "\n") }
	home := lines("Parsnip", "Latest posts", "Our autumn sprint", "We spent a week on speed.", "Raised beds support", "Parsnip now knows raised beds.")
	home2 := lines("Parsnip", "Latest posts", "A compost calculator", "Parsnip now weighs your compost heap.", "Our autumn sprint", "We spent a week on speed.")
	for _, c := range []struct {
		name     string
		old, new string
		want     bool
	}{
		{"the home page", home, home2, true},
		{"a Next: link", lines("Our autumn sprint", "We spent a week on speed."), lines("Our autumn sprint", "We spent a week on speed.", "Next: A compost calculator →"), true},
		{"a tag", lines("Tags", "features", "news"), lines("Tags", "features", "news", "soil"), true},
		{"a sentence of its own", lines("Sow", "Sow plans seeds."), lines("Sow", "Sow plans seeds.", "The new compost calculator helps sow plan seeds for a whole bed at once."), false},
		{"the words, not the line", lines("Sow", "Sow plans seeds."), lines("Sow", "Sow plans seeds.", "Your compost heap weighs now."), false},
		{"an edit beside the listing", home, lines("Parsnip", "Latest posts", "A compost calculator", "Parsnip now weighs your compost heap.", "Our autumn sprint", "We spent a month on speed."), false},
	} {
		if got := n.Listing(c.old, c.new, LineSet{}, []Named{post}); got != c.want {
			t.Errorf("%s: Listing = %v, want %v", c.name, got, c.want)
		}
	}
	if n.Listing(home, home2, LineSet{}, nil) {
		t.Error("a listing of no news")
	}
	if !Holds(home2, "A compost calculator") || Holds(home2, "Parsnip") {
		t.Error("Holds: a title on a line of its own, or a title of one short word")
	}
}
