package pagetext

import (
	"strings"
	"testing"
)

// TestExtractWholeBody: WholeBody keeps the navigation and footer that
// readability's article leaves out, so that one page always gives the
// same lines whichever block readability would pick.
func TestExtractWholeBody(t *testing.T) {
	page := `<html><head><title>Cats</title></head><body><nav><ul><li><a href="/">Home</a></li><li><a href="/dogs">Dogs</a></li></ul></nav>
<article><h1>Cats</h1>` + strings.Repeat(`<p>Tabby sleeps all day by the window, and Ginger chases the red dot across the hall.</p>`, 8) + `</article>
<footer><p>© 2026 Ann</p></footer></body></html>`
	article, err := Extract([]byte(page), "text/html", "https://example.org/cats")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Options{WholeBody: true}.Extract([]byte(page), "text/html", "https://example.org/cats")
	if err != nil {
		t.Fatal(err)
	}
	if article.Method != MethodArticle || strings.Contains(article.Text, "© 2026 Ann") {
		t.Fatalf("without WholeBody: method %q, text %q", article.Method, article.Text)
	}
	if whole.Method != MethodBody || whole.Title != "Cats" || !strings.HasPrefix(whole.Text, "Home\nDogs\nCats\nTabby") ||
		!strings.HasSuffix(whole.Text, "\n© 2026 Ann") {
		t.Errorf("WholeBody: method %q, title %q, text %q", whole.Method, whole.Title, whole.Text)
	}
}
