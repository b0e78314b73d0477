package pagetext

import (
	"maps"
	"slices"
	"testing"
)

func TestSharedLines(t *testing.T) {
	nav := "Home\nAbout\nGallery"
	texts := []string{
		nav + "\nThe luna moth is pale green.",
		nav + "\nThe atlas moth is large.",
		"The atlas moth is large.",
		nav + "\nOther shrines.",
		"Thank you for visiting.",
		"Thank you for visiting.\nOnce more.",
		"Alone here.",
		"Alone too.",
	}
	got := slices.Sorted(maps.Keys(SharedLines(texts)))
	want := []string{"About", "Gallery", "Home", "Thank you for visiting.", "The atlas moth is large."}
	if !slices.Equal(got, want) {
		t.Errorf("shared %q, want %q: every line in two texts and a quarter of them", got, want)
	}
	if SharedLines(texts[:1]) != nil {
		t.Error("one text shares nothing")
	}
}

func TestCompareWithout(t *testing.T) {
	shared := map[string]bool{"Home": true, "Built today": true}
	if d := CompareWithout("Home\nText\nBuilt yesterday", "Home\nText\nBuilt today", map[string]bool{"Home": true}); d.Unchanged() {
		t.Error("a line not shared that changed is a change")
	}
	if d := CompareWithout("Home\nText", "Home\nText\nBuilt today", shared); !d.Unchanged() {
		t.Errorf("only a shared line changed: %+v", d)
	}
}
