package pageset

import "testing"

func TestKey(t *testing.T) {
	same := [][2]string{
		{"https://example.org/x", "http://www.example.org/x/"},
		{"https://example.org/x/", "https://example.org/x/index.html"},
		{"https://example.org/x.html", "https://Example.ORG/x"},
		{"https://example.org/x?a=1#top", "https://example.org/x/?a=1"},
	}
	for _, p := range same {
		if !SameAddress(p[0], p[1]) {
			t.Errorf("%s and %s: %q and %q, want one page", p[0], p[1], Key(p[0]), Key(p[1]))
		}
	}
	other := [][2]string{
		{"https://example.org/x", "https://example.org/login"},
		{"https://example.org/x?a=1", "https://example.org/x?a=2"},
		{"https://example.org/x", "https://example.net/x"},
	}
	for _, p := range other {
		if SameAddress(p[0], p[1]) {
			t.Errorf("%s and %s: both %q, want two pages", p[0], p[1], Key(p[0]))
		}
	}
}
