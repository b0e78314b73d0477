package urls

import (
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	for _, tc := range []struct {
		in, want  string
		keepQuery bool
	}{
		{"HTTP://Example.ORG", "http://example.org/", false},
		{"https://example.org:443/a/./b/../c.html#x", "https://example.org/a/c.html", false},
		{"http://example.org:80/x/index.html", "http://example.org/x/", false},
		{"http://example.org:8080/x/index.htm", "http://example.org:8080/x/", false},
		{"https://example.org/index.html", "https://example.org/", false},
		{"https://example.org/x/?b=2&a=1", "https://example.org/x/", false},
		{"https://example.org/x/?b=2&a=1", "https://example.org/x/?a=1&b=2", true},
		{"https://example.org/a//b/", "https://example.org/a/b/", false},
		{"https://[::1]:443/", "https://[::1]/", false},
		{"https://example.org/caf%C3%A9.html", "https://example.org/caf%C3%A9.html", false},
	} {
		got, ok := Canonical(tc.in, tc.keepQuery)
		if !ok || got != tc.want {
			t.Errorf("Canonical(%q, %v) = %q, %v; want %q", tc.in, tc.keepQuery, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"mailto:ann@example.org", "javascript:void(0)", "/relative", "ftp://example.org/",
		"https://user:pw@example.org/", "https://example.org/" + strings.Repeat("a", MaxURLBytes)} {
		if got, ok := Canonical(bad, true); ok {
			t.Errorf("Canonical(%q) = %q, want refused", bad, got)
		}
	}
}

func TestAliasKey(t *testing.T) {
	same := []string{"https://h/x", "https://h/x/", "https://h/x.html", "https://h/x.htm"}
	for _, u := range same {
		if AliasKey(u) != AliasKey(same[0]) {
			t.Errorf("AliasKey(%q) = %q, want %q", u, AliasKey(u), AliasKey(same[0]))
		}
	}
	if AliasKey("https://h/x?a=1") == AliasKey("https://h/x") || AliasKey("https://h/y") == AliasKey("https://h/x") {
		t.Error("different pages share an alias key")
	}
}

// TestCanonicalDropsSessions: links that carry a visitor's session name
// the page without it, so a site that writes sessions into its links is
// crawled once, not once per visit.
func TestCanonicalDropsSessions(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://h/a.html;jsessionid=0A1B2C3D4E5F", "https://h/a.html"},
		{"https://h/shop/;JSESSIONID=abc?x=1", "https://h/shop/?x=1"},
		{"https://h/a.php?PHPSESSID=9f8e7d6c5b4a39281706&page=2", "https://h/a.php?page=2"},
		{"https://h/a.php?sid=77", "https://h/a.php"},
		{"https://h/s/a1b2c3d4e5f6a7b8c9d0/gallery/", "https://h/gallery/"},
		{"https://h/(S(lit3py55t21z5v55vlm25s55))/page.aspx", "https://h/page.aspx"},
		{"https://h/s/summer-holidays-2026/", "https://h/s/summer-holidays-2026/"},
		{"https://h/s/short1/", "https://h/s/short1/"},
		{"https://h/blog?side=left", "https://h/blog?side=left"},
	} {
		if got, ok := Canonical(tc.in, true); !ok || got != tc.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
