package pagetext

import (
	"fmt"
	"strings"
	"testing"
)

func TestVolatile(t *testing.T) {
	for _, l := range []string{
		"This page has been visited 1,234 times",
		"Visitors: 00451",
		"Last update: 3 November 2026",
		"Last updated on Tue, 24 Nov 2026 10:04:07 GMT",
		"Page generated in 0.021 seconds",
		"Built from commit 4f2a1c9 on 2026-11-25",
		"Updated 3 days ago",
		"2026-11-25T08:00:00Z",
		"v1.2.3",
		"12 users online",
	} {
		if !Volatile(l) {
			t.Errorf("%q: not taken for a counter or a timestamp", l)
		}
	}
	for _, l := range []string{
		"Updated the gallery with 3 new pictures",
		"The luna moth lives for about 7 days.",
		"© 2026 Ann, made by hand",
		"Last update",
		"Chapter 12: the atlas moth",
		"Version 2.0 brings dark mode",
		"",
	} {
		if Volatile(l) {
			t.Errorf("%q: taken for a counter or a timestamp", l)
		}
	}
}

func TestShape(t *testing.T) {
	for in, want := range map[string]string{
		"Moth docs v1.2.3":              "Moth docs v#.#.#",
		"Moth docs v1.10.0":             "Moth docs v#.#.#",
		"Built on 3 November 2026":      "Built on # @ #",
		"Mayfly notes, Tuesday edition": "Mayfly notes, @ edition",
	} {
		if got := Shape(in); got != want {
			t.Errorf("Shape(%q) = %q, want %q", in, got, want)
		}
	}
}

// A release that bumps the number in every page's navbar is learned as
// one shape; a page whose own number changed is not the site's.
func TestLearnShapes(t *testing.T) {
	var pairs [][2]string
	for i := range 8 {
		old := fmt.Sprintf("Moth docs 1.2\nPage %d is about moths.", i)
		new := strings.Replace(old, "1.2", "1.3", 1)
		if i == 0 {
			new += "\nIt has 4 wings."
			old += "\nIt has 3 wings."
		}
		pairs = append(pairs, [2]string{old, new})
	}
	got := LearnShapes(pairs, 3)
	if !got["Moth docs #.#"] || len(got) != 1 {
		t.Errorf("learned %v, want only the navbar's shape", got)
	}
	if got := LearnShapes(pairs[:2], 3); len(got) != 0 {
		t.Errorf("two pages taught %v; a shape needs three", got)
	}
}

func TestNoiseDrop(t *testing.T) {
	var n Noise
	n.AddTitles("The luna moth", "Atlas moth", "Links")
	for _, s := range []string{"/visited \\d+ times/", "webring"} {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		n.Rules = append(n.Rules, r)
	}
	text := strings.Join([]string{
		"Welcome to my shrine.",
		"Recently updated:",
		"The luna moth, 20 Nov 2026",
		"Atlas moth (new)",
		"Links",
		"You were visited 3 times today, friend",
		"Moth WebRing: previous | next",
		"Last update: 25 November 2026",
		"The atlas moth is large.",
	}, "\n")
	want := strings.Join([]string{
		"Welcome to my shrine.",
		"Recently updated:",
		"Links",
		"The atlas moth is large.",
	}, "\n")
	if got := n.Drop(text); got != want {
		t.Errorf("Drop:\n%s\nwant:\n%s", got, want)
	}
	if _, err := ParseRule("/(unclosed/"); err == nil {
		t.Error("a broken regular expression was taken")
	}
}
