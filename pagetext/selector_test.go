package pagetext

import (
	"strings"
	"testing"
)

func TestRemoveSelectors(t *testing.T) {
	page := func(ring, body string) []byte {
		return []byte(`<html><head><title>Luna</title></head><body><h1>Luna moth</h1><p>` + body +
			`</p><div class="webring"><p>Moth ring: ` + ring + `</p></div><p id="hits">Hits: 12</p></body></html>`)
	}
	sel, err := ParseSelector(".webring, #hits")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{WholeBody: true, Remove: []Selector{sel}}
	s, err := o.Extract(page("Kestrel's moths", "It is pale green."), "text/html", "https://moths.example/luna")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Luna moth\nIt is pale green."; s.Text != want {
		t.Errorf("text %q, want %q", s.Text, want)
	}
	for _, bad := range []string{"", "div[", strings.Repeat("a ", 200)} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("%q taken for a selector", bad)
		}
	}

	// A text read before the rule, compared with one read after: the
	// edit is found, and neither the webring then nor now shows.
	old, err := Options{WholeBody: true}.Extract(page("Kestrel's moths", "It is pale green."), "text/html", "")
	if err != nil {
		t.Fatal(err)
	}
	o.KeepUnremoved = true
	s, err = o.Extract(page("Owl's moths", "It is pale green.</p><p>It flies at night."), "text/html", "")
	if err != nil {
		t.Fatal(err)
	}
	a, b := Rebased(old.Text, s.Text, s.Unremoved)
	d := Compare(a, b)
	if d.Removed != 0 || d.Added != 1 || d.Ops[1].Ins[0] != "It flies at night." {
		t.Errorf("rebased diff %+v, want only the new sentence added", d)
	}
}
