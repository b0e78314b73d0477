package pagetext

import (
	"slices"
	"strings"
	"testing"
)

// TestWidgets: two reads of a page moments apart give the rules that
// leave out what differs, and those rules leave it out of any later read;
// a page that differs by more than widgets do gives none.
func TestWidgets(t *testing.T) {
	read := func(quote, banner, member string, extra ...string) string {
		return strings.Join(slices.Concat([]string{"Moth pages", "Our banner", banner, "Thanks for reading", "The luna moth is pale green."},
			extra, []string{"Quote of the day: " + quote, "Webring: visit " + member}), "\n")
	}
	first := read("Look before you leap.", "Seed swap", "Owl hollow")
	second := read("Fortune favours the bold.", "Mind the frogs", "The bat cave")
	got := Widgets(first, second, &Noise{})
	want := []string{"between “Our banner” and “Thanks for reading”", "Quote of the day: …", "Webring: visit …"}
	if !slices.Equal(got, want) {
		t.Fatalf("Widgets = %q, want %q", got, want)
	}
	n := &Noise{}
	n.Learn(map[string]bool{got[0]: true, got[1]: true, got[2]: true})
	for _, w := range want {
		if !n.Knows(w) || !IsWidget(w) {
			t.Errorf("%q not known as a widget once learned", w)
		}
	}
	third := read("Still waters run deep.", "Tea at four", "Pond life", "It flies at night.")
	if d := Compare(n.Drop(first), n.Drop(third)); d.Added != 1 || d.Removed != 0 || d.Ops[1].Ins[0] != "It flies at night." {
		t.Errorf("with the widgets learned, the edit compares as %+v", d)
	}
	// Not widgets: a short shared beginning, a page rewritten.
	if got := Widgets("Now: tea\nend", "Now: cake\nend", &Noise{}); got != nil {
		t.Errorf("a five-letter beginning gave %q", got)
	}
	rewritten := strings.Join([]string{"a", "b", "c", "d", "e", "f"}, "\n")
	if got := Widgets(first, rewritten, &Noise{}); got != nil {
		t.Errorf("a rewritten page gave %q", got)
	}
	if IsWidget("Visited # times") || IsWidget("Now…") {
		t.Error("a shape is taken for a widget")
	}
}
