package urls

import "testing"

func TestWatchScope(t *testing.T) {
	for _, tc := range []struct{ page, scope string }{
		{"https://host/shrine/", "https://host/shrine/"},
		{"https://host/shrine/index.html", "https://host/shrine/"},
		{"https://host/shrine/cats.html", "https://host/shrine/"},
		{"https://user.github.io/project/", "https://user.github.io/project/"},
		{"https://host", "https://host/"},
		{"https://host/about.html", "https://host/"},
	} {
		s, ok := WatchScopeOf(tc.page)
		if !ok || s.URL() != tc.scope {
			t.Errorf("WatchScopeOf(%q) = %q, want %q", tc.page, s.URL(), tc.scope)
		}
	}
	s, _ := WatchScopeOf("https://host/shrine/")
	for u, want := range map[string]bool{
		"https://host/shrine/a.html": true, "https://host/shrine/": true, "https://host/shrine": false,
		"https://host/shrinery/": false, "https://host/": false, "http://host/shrine/a.html": false,
		"https://host:8443/shrine/a.html": false, "https://other/shrine/": false,
	} {
		if s.Contains(u) != want {
			t.Errorf("scope /shrine/ contains %q = %v, want %v", u, !want, want)
		}
	}
}
