package pagetext

import (
	"strings"
	"testing"
)

// TestShortPagesKeepTheirMainText: on a page whose <main> holds a few
// short lines, readability picks the footer line; the text read is then
// the one the page marks as its main content (or the whole body), so an
// edit of "Or write." to "Or email." is seen.
func TestShortPagesKeepTheirMainText(t *testing.T) {
	for _, page := range []string{
		`<nav><a href="/">Home</a></nav><main><h1>Contact</h1><p>Say hi to me.</p><p>%s</p></main>` +
			`<footer><p>© 2026 Bea · made by hand with love and a text editor, on a small computer.</p></footer>`,
		`<main><h2>Contact</h2><p>You can find me on the forum most days.</p><p>%s</p></main>` +
			`<footer><p>Last updated by hand. This site is best viewed in any browser at all, really.</p></footer>`,
		`<div role="main"><h2>Contact</h2><p>You can find me on the forum most days.</p><p>%s</p></div>` +
			`<footer><p>Last updated by hand. This site is best viewed in any browser at all, really.</p></footer>`,
		`<article><h2>Contact</h2><p>You can find me on the forum most days.</p><p>%s</p></article>` +
			`<footer><p>Last updated by hand. This site is best viewed in any browser at all, really.</p></footer>`,
	} {
		var texts []string
		for _, line := range []string{"Or write.", "Or email."} {
			body := "<!doctype html><html><head><title>Contact</title></head><body>" + strings.Replace(page, "%s", line, 1) + "</body></html>"
			s, err := Extract([]byte(body), "text/html", "https://bea.example/contact.html")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(s.Text, line) {
				t.Errorf("%s: text %q lacks %q", s.Method, s.Text, line)
			}
			texts = append(texts, s.Text)
		}
		if d := Compare(texts[0], texts[1]); d.Added != 1 || d.Removed != 1 {
			t.Errorf("the edit gave %+v, want one line for one", d)
		}
	}
}
