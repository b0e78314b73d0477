package pagetext

import (
	"strings"
	"testing"
)

// TestGoneChrome: the lines a release removes from the navbar are the
// site's whether many pages or one are compared, but a line a page's
// own edit removes or replaces is not.
func TestGoneChrome(t *testing.T) {
	page := func(release string, nav []string, body ...string) string {
		return strings.Join(append(append([]string{release}, nav...), body...), "\n")
	}
	oldNav, newNav := []string{"Guide", "Tools & Techniques", "Blog"}, []string{"Guide", "Blog"}
	after := []string{page("parsnip 1.4.1", newNav, "One."), page("parsnip 1.4.1", newNav, "Two.")}
	shared := QuarterShared(after)
	// One page compared: its navbar lost the section and the release.
	one := [][2]string{{page("parsnip 1.4.0", oldNav, "Dig reads the soil.", "Mood: happy"), page("parsnip 1.4.1", newNav, "Dig reads the soil.", "Mood: grumpy")}}
	gone := GoneChrome(one, shared, 3)
	_, section := gone["Tools & Techniques"]
	_, release := gone["parsnip 1.4.0"]
	if len(gone) != 2 || !section || !release {
		t.Errorf("one page: gone %v, want the section and the release, not the mood", gone)
	}
	if len(ChromeShapes(gone)) != 0 {
		t.Errorf("one page's evidence was to be learned: %v", ChromeShapes(gone))
	}
	// Four pages: the section left them all, and is learned.
	var four [][2]string
	for _, b := range []string{"A.", "B.", "C.", "D."} {
		four = append(four, [2]string{page("parsnip 1.4.0", oldNav, b), page("parsnip 1.4.1", newNav, b)})
	}
	shapes := ChromeShapes(GoneChrome(four, shared, 3))
	if !shapes["Tools & Techniques"] || !shapes["parsnip #.#.#"] {
		t.Errorf("four pages: learned %v", shapes)
	}
	// A sentence a page's edit removed is the page's.
	edit := [][2]string{{page("parsnip 1.4.1", newNav, "Dig reads the soil.", "It is slow."), page("parsnip 1.4.1", newNav, "Dig reads the soil.")}}
	if gone := GoneChrome(edit, shared, 3); len(gone) != 0 {
		t.Errorf("an edit: gone %v", gone)
	}
}
