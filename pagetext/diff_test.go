package pagetext

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDiffHTML(t *testing.T) {
	tests := []struct {
		name, old, new, html, summary string
	}{
		{"a sentence changed",
			"Cats of the Month\nWhiskers sleeps on the warm windowsill every afternoon.\nAge: 3 years",
			"Cats of the Month\nWhiskers purrs on the sunny windowsill every afternoon.\nAge: 3 years",
			"<p>Whiskers <del>sleeps</del><ins>purrs</ins> on the <del>warm</del><ins>sunny</ins> windowsill every afternoon.</p>\n",
			"Removed: Whiskers sleeps on the warm windowsill every afternoon. Added: Whiskers purrs on the sunny windowsill every afternoon."},
		{"neighbouring words changed become one change",
			"The cat sat on the mat.",
			"The dog lay on the mat.",
			"<p>The <del>cat sat</del><ins>dog lay</ins> on the mat.</p>\n",
			"Removed: The cat sat on the mat. Added: The dog lay on the mat."},
		{"a line added and another removed",
			"Links\nA cat shrine\nThe old guestbook\nDogs",
			"Links\nA cat shrine\nDogs\nA new gallery of tabbies",
			"<p><del>The old guestbook</del></p>\n<p><ins>A new gallery of tabbies</ins></p>\n",
			"Removed: The old guestbook; Added: A new gallery of tabbies"},
		{"a line replaced by an unrelated one",
			"Intro\nWelcome to my shrine!\nEnd",
			"Intro\nThis site has moved elsewhere.\nEnd",
			"<p><del>Welcome to my shrine!</del></p>\n<p><ins>This site has moved elsewhere.</ins></p>\n",
			"Removed: Welcome to my shrine! Added: This site has moved elsewhere."},
		{"lines removed only",
			"One\nTwo\nThree",
			"One",
			"<p><del>Two</del></p>\n<p><del>Three</del></p>\n",
			"Removed: Two / Three"},
		{"site text is escaped",
			"Intro",
			"Intro\n<script>alert(\"x\")</script> & <b>bold</b>",
			"<p><ins>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;</ins></p>\n",
			"Added: <script>alert(\"x\")</script> & <b>bold</b>"},
		{"escaped inside a changed line",
			"Use <em> for stress",
			"Use <strong> for stress",
			"<p>Use &lt;<del>em</del><ins>strong</ins>&gt; for stress</p>\n",
			"Removed: Use <em> for stress; Added: Use <strong> for stress"},
		{"created page shows its opening lines",
			"",
			"Cats\nOne\nTwo\nThree\nFour\nFive\nSix",
			"<p>Cats</p>\n<p>One</p>\n<p>Two</p>\n<p>Three</p>\n<p>Four</p>\n<p>and 2 more lines</p>\n",
			"Added: Cats / One (and 5 more lines)"},
		{"identical texts",
			"Same\ntext", "Same\ntext",
			"<p>no change to the text</p>", "no change to the text"},
		{"both empty", "", "", "<p>no change to the text</p>", "no change to the text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Compare(tt.old, tt.new)
			if got := d.HTML(); got != tt.html {
				t.Errorf("HTML:\n%s\nwant:\n%s", got, tt.html)
			}
			if got := d.Summary(); got != tt.summary {
				t.Errorf("Summary = %q, want %q", got, tt.summary)
			}
			if got, err := d.Apply(tt.old); err != nil || got != tt.new {
				t.Errorf("Apply = %q, %v; want %q", got, err, tt.new)
			}
		})
	}
}

// Text and markup extracted from two versions of a page: only the changed
// sentence's words are marked, and a markup-only change says so.
func TestDiffExtractedVersions(t *testing.T) {
	url := "https://shrine.example/cats.html"
	v1, _ := Extract([]byte(realisticPage(20<<10, 0)), "text/html", url)
	v2, _ := Extract([]byte(realisticPage(20<<10, 1)), "text/html", url)
	d := Compare(v1.Text, v2.Text)
	want := "<p>Whiskers number 2 <del>sleeps</del><ins>purrs</ins> on the warm windowsill every afternoon, and the neighbours say she is the finest cat on the street. She was adopted in spring from the shelter on Elm Road &amp; has lived with us since.</p>\n"
	if d.HTML() != want || d.Added != 1 || d.Removed != 1 {
		t.Errorf("HTML:\n%s\nwant:\n%s", d.HTML(), want)
	}
	markup := strings.ReplaceAll(realisticPage(20<<10, 0), "<em>warm</em>", `<span class="hot">warm</span>`)
	v3, _ := Extract([]byte(markup), "text/html", url)
	if v3.ContentHash == v1.ContentHash || v3.TextHash != v1.TextHash {
		t.Fatal("a markup-only change should keep the text hash and move the content hash")
	}
	if d := Compare(v1.Text, v3.Text); d.HTML() != "<p>no change to the text</p>" || d.Summary() != NoTextChange || d.Unified("a", "b") != "" {
		t.Errorf("markup-only change: %q, %q", d.HTML(), d.Summary())
	}
}

func TestDiffHTMLCap(t *testing.T) {
	var old, new []string
	for i := range 100 {
		old = append(old, fmt.Sprintf("kept line %d", i))
		new = append(new, fmt.Sprintf("kept line %d", i), fmt.Sprintf("new line %d", i))
	}
	d := Compare(strings.Join(old, "\n"), strings.Join(new, "\n"))
	html := d.HTML()
	if n := strings.Count(html, "<ins>"); n != MaxHTMLLines {
		t.Errorf("%d added lines shown, want %d", n, MaxHTMLLines)
	}
	if !strings.HasSuffix(html, "<p>and 60 more lines</p>\n") || strings.Contains(html, "kept line") {
		t.Errorf("HTML ends %q", html[len(html)-80:])
	}
	if d.Summary() != "Added: new line 0 / new line 1 (and 98 more lines)" {
		t.Errorf("Summary = %q", d.Summary())
	}
	var pairs []string
	for i := range 30 {
		pairs = append(pairs, fmt.Sprintf("cat number %d sleeps", i))
	}
	d = Compare(strings.Join(pairs, "\n"), strings.ReplaceAll(strings.Join(pairs, "\n"), "sleeps", "purrs"))
	if n := strings.Count(d.HTML(), "<p>"); n != MaxHTMLLines/2+1 || !strings.Contains(d.HTML(), "and 20 more lines") {
		t.Errorf("changed pairs: %d paragraphs, HTML ends %q", n, d.HTML()[len(d.HTML())-60:])
	}
	one := Compare("a", "a\nb\nc")
	if strings.Contains(one.HTML(), "more") {
		t.Errorf("under the cap: %q", one.HTML())
	}
}

func TestDiffLongLines(t *testing.T) {
	long := strings.Repeat("ça va très bien, ", 100)
	d := Compare("Start "+long+"end.", "Start "+long+"finish.")
	html := d.HTML()
	if !strings.Contains(html, "<del>end</del><ins>finish</ins>") || utf8.RuneCountInString(html) > 400 || !strings.Contains(html, "…") {
		t.Errorf("long changed line not elided around the change: %d runes: %s", utf8.RuneCountInString(html), html)
	}
	s := Compare("", strings.Repeat("日本語の文章です。", 50)).Summary()
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxSummary+20 || !strings.HasSuffix(s, "…") {
		t.Errorf("summary not truncated by runes: %q", s)
	}
}

func TestDiffUnified(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn"
	want := `--- cats.html 2026-11-01
+++ cats.html 2026-11-02
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -11,3 +11,4 @@
 k
 l
 m
+n
`
	if got := Compare(old, new).Unified("cats.html 2026-11-01", "cats.html\n2026-11-02"); got != want {
		t.Errorf("Unified:\n%s\nwant:\n%s", got, want)
	}
	near := Compare("a\nb\nc\nd\ne", "a\nB\nc\nD\ne").Unified("x", "y")
	if want := "--- x\n+++ y\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n-d\n+D\n e\n"; near != want {
		t.Errorf("close changes share a hunk:\n%s\nwant:\n%s", near, want)
	}
	created := Compare("", "x\ny").Unified("x", "y")
	if want := "--- x\n+++ y\n@@ -0,0 +1,2 @@\n+x\n+y\n"; created != want {
		t.Errorf("created:\n%s\nwant:\n%s", created, want)
	}
}

// The stored form survives JSON and still rebuilds the new text, and
// refuses a text it was not made from.
func TestDiffStoredForm(t *testing.T) {
	old := strings.Repeat("unchanged line\n", 50) + "old ending"
	new := "a new first line\n" + strings.Repeat("unchanged line\n", 50) + "new ending"
	blob, err := json.Marshal(Compare(old, new))
	if err != nil {
		t.Fatal(err)
	}
	if len(blob) > 300 {
		t.Errorf("stored form is %d bytes for a two-line change: %s", len(blob), blob)
	}
	var d Diff
	if err := json.Unmarshal(blob, &d); err != nil {
		t.Fatal(err)
	}
	if got, err := d.Apply(old); err != nil || got != new {
		t.Errorf("Apply after JSON = %q, %v", got, err)
	}
	for _, base := range []string{"", "unchanged line", strings.Replace(old, "unchanged", "changed", 1), old + "\nmore"} {
		if _, err := d.Apply(base); !errors.Is(err, ErrBaseMismatch) {
			t.Errorf("Apply to a wrong base: err = %v", err)
		}
	}
}

// A created page's stored Diff keeps only what its entry shows, and shows
// it exactly as the whole text's Diff would.
func TestOpening(t *testing.T) {
	long := strings.Repeat("word ", 200) + "end"
	text := strings.Join([]string{"Cats", long, "Two", "Three", "Four", "Five", "Six"}, "\n")
	whole, opening := Compare("", text), Opening(text)
	if got, want := opening.HTML(), whole.HTML(); got != want {
		t.Errorf("HTML:\n%s\nwant, as from the whole text:\n%s", got, want)
	}
	if got, want := opening.Summary(), whole.Summary(); got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if !strings.Contains(opening.HTML(), "and 2 more lines") {
		t.Errorf("HTML does not count the lines not shown:\n%s", opening.HTML())
	}
	b, err := json.Marshal(opening)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 2*maxShownLine+200 {
		t.Errorf("stored form is %d bytes: %s", len(b), b)
	}
	var back Diff
	if err := json.Unmarshal(b, &back); err != nil || back.HTML() != whole.HTML() || back.More != 2 {
		t.Errorf("after JSON: more %d, err %v, HTML\n%s", back.More, err, back.HTML())
	}
	if _, err := opening.Apply(""); !errors.Is(err, ErrClipped) {
		t.Errorf("Apply of a clipped Diff: %v, want ErrClipped", err)
	}
	wantUnified := "--- x\n+++ y\n@@ -0,0 +1,5 @@\n+Cats\n+" + firstRunes(long, maxShownLine+1) + "\n+Two\n+Three\n+Four\n\\ and 2 more lines, not kept\n"
	if got := opening.Unified("x", "y"); got != wantUnified {
		t.Errorf("Unified:\n%s\nwant:\n%s", got, wantUnified)
	}
	short := Opening("x\ny")
	if got, err := short.Apply(""); err != nil || got != "x\ny" || short.More != 0 {
		t.Errorf("a short page is kept whole: %q, %v, more %d", got, err, short.More)
	}
	if !Opening("").Unchanged() {
		t.Errorf("an empty page is no change")
	}
}
