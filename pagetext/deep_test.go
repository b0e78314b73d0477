package pagetext

import (
	"strings"
	"testing"
)

// TestExtractDeeplyNestedPage: the HTML parser refuses a page nested
// deeper than 512 elements; its text must survive, read without the tree.
func TestExtractDeeplyNestedPage(t *testing.T) {
	for _, depth := range []int{513, 20000} {
		page := "<html><head><title>Deep</title></head><body><p>Before the pit.</p>" +
			strings.Repeat("<div>", depth) + "At the bottom." + strings.Repeat("</div>", depth) +
			"<p>After the pit.</p></body></html>"
		s, err := Extract([]byte(page), "text/html; charset=utf-8", "https://example.org/deep")
		if err != nil {
			t.Fatal(err)
		}
		if want := "Before the pit.\nAt the bottom.\nAfter the pit."; s.Text != want || s.Title != "Deep" || s.Method != MethodBody {
			t.Errorf("depth %d: title %q, method %q, text %q; want %q", depth, s.Title, s.Method, s.Text, want)
		}
	}
}
