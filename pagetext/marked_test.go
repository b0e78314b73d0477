package pagetext_test

import (
	"html"
	"slices"
	"strings"
	"testing"

	"github.com/microcosm-cc/bluemonday"

	"tidings/internal/changetest"
	"tidings/pagetext"
)

const (
	del = `<del style="color: #82071e; background-color: #ffebe9">`
	ins = `<ins style="color: #0f5323; background-color: #dafbe1">`
)

// markedCases are changes of every shape a line can take: an in-line
// replacement, words only added or only removed, a punctuation change,
// lines replaced, added and removed whole, and site text to escape.
var markedCases = []struct {
	name, old, new, html string
}{
	{"a number changed",
		"Winter cranes\nSo far: 212.",
		"Winter cranes\nSo far: 340.",
		"<p>So far: [" + del + "212</del> → " + ins + "340</ins>].</p>\n"},
	{"words replaced",
		"Whiskers sleeps on the warm windowsill every afternoon.",
		"Whiskers purrs on the sunny windowsill every afternoon.",
		"<p>Whiskers [" + del + "sleeps</del> → " + ins + "purrs</ins>] on the [" + del + "warm</del> → " + ins + "sunny</ins>] windowsill every afternoon.</p>\n"},
	{"words added and removed within lines",
		"Tabby sleeps.\nGinger hunts on the warm windowsill.",
		"Tabby sleeps all day.\nGinger hunts on the windowsill.",
		"<p>Tabby sleeps [added: " + ins + "all day</ins>].</p>\n<p>Ginger hunts on the [removed: " + del + "warm</del>] windowsill.</p>\n"},
	{"lines replaced whole",
		"Links\nThe old guestbook\nDogs",
		"Links\nA new gallery of tabbies\nDogs",
		"<p>Removed: " + del + "The old guestbook</del></p>\n<p>Added: " + ins + "A new gallery of tabbies</ins></p>\n"},
	{"lines added and removed",
		"One\nTwo\nThree",
		"One\nThree\nFour\nFive",
		"<p>Removed: " + del + "Two</del></p>\n<p>Added: " + ins + "Four</ins></p>\n<p>Added: " + ins + "Five</ins></p>\n"},
	{"site text is escaped",
		"Use <em> for stress\nIntro",
		"Use <strong> for stress\nIntro\n<script>alert(1)</script> & more",
		"<p>Use &lt;[" + del + "em</del> → " + ins + "strong</ins>]&gt; for stress</p>\n<p>Added: " + ins + "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more</ins></p>\n"},
}

func TestFeedHTML(t *testing.T) {
	for _, tt := range markedCases {
		d := pagetext.Compare(tt.old, tt.new)
		if got := d.FeedHTML(); got != tt.html {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.html)
		}
	}
	same := pagetext.Compare("a", "a")
	created := pagetext.Compare("", "Cats\nOne")
	for _, d := range []pagetext.Diff{same, created} {
		if d.FeedHTML() != d.HTML() {
			t.Errorf("%+v: FeedHTML %q differs from HTML %q", d, d.FeedHTML(), d.HTML())
		}
	}
}

// TestFeedHTMLWithoutMarkup: once a sanitizer has stripped every tag and
// attribute, the words alone give back each removed and added line, and
// mark nothing else.
func TestFeedHTMLWithoutMarkup(t *testing.T) {
	strict := bluemonday.StrictPolicy()
	for _, tt := range markedCases {
		d := pagetext.Compare(tt.old, tt.new)
		text := html.UnescapeString(strict.Sanitize(d.FeedHTML()))
		got := changetest.ReadMarked(text)
		var wantDel, wantIns []string
		for _, op := range d.Ops {
			wantDel = append(wantDel, op.Del...)
			wantIns = append(wantIns, op.Ins...)
		}
		if !sameLines(got.Removed, wantDel) || !sameLines(got.Added, wantIns) || len(got.Plain) != 0 {
			t.Errorf("%s: read as removed %q, added %q, unmarked %q; want removed %q, added %q\n%s",
				tt.name, got.Removed, got.Added, got.Plain, wantDel, wantIns, text)
		}
	}
}

func sameLines(got, want []string) bool {
	squash := func(in []string) []string {
		var out []string
		for _, s := range in {
			out = append(out, changetest.Squash(s))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(squash(got), squash(want))
}

// TestFeedHTMLBounds: the words cost a little per changed line; the lines
// shown stay within HTML's bounds.
func TestFeedHTMLBounds(t *testing.T) {
	var a, b []string
	for i := range 100 {
		a = append(a, strings.Repeat("old ", 200)+string(rune('a'+i%26)))
		b = append(b, strings.Repeat("new ", 200)+string(rune('a'+i%26)))
	}
	d := pagetext.Compare(strings.Join(a, "\n"), strings.Join(b, "\n"))
	feed, page := d.FeedHTML(), d.HTML()
	if strings.Count(feed, "<p>") != strings.Count(page, "<p>") {
		t.Errorf("FeedHTML has %d paragraphs, HTML %d", strings.Count(feed, "<p>"), strings.Count(page, "<p>"))
	}
	perLine := (len(feed) - len(page)) / pagetext.MaxHTMLLines
	if perLine > len(del)+len("Removed: ") {
		t.Errorf("the words cost %d bytes a line", perLine)
	}
}
