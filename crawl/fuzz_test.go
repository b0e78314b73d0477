package crawl

import (
	"strings"
	"testing"

	"tidings/urls"
)

// FuzzParse: whatever a page holds, its links are canonical, in scope,
// unique, no files and no traps, and at most MaxLinks.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`<base href="/shrine/x/"><a href="../a.html">a</a><a href="b?q=1">b</a><link rel=canonical href="/shrine/">`), "https://host/shrine/p.html")
	f.Add([]byte(`<a href="//host/shrine/%zz">x</a><a href="http://HOST:443/shrine/../shrine/a/a/a/">y</a>`), "https://host/shrine/")
	f.Add([]byte(`<area href=" /shrine/index.htm#x "><input type=PASSWORD>`), "https://host/shrine/")
	f.Fuzz(func(t *testing.T, body []byte, pageURL string) {
		scope, ok := urls.WatchScopeOf("https://host/shrine/")
		if !ok {
			t.Fatal("scope")
		}
		p := Parse(body, pageURL, scope)
		if len(p.Links) > MaxLinks {
			t.Fatalf("%d links", len(p.Links))
		}
		seen := map[string]bool{}
		for _, l := range p.Links {
			c, ok := urls.Canonical(l, true)
			if !ok || c != l || !scope.Contains(l) || notPage(l) || Trap(l) || seen[l] || strings.Contains(l, "#") {
				t.Fatalf("link %q (canonical %q %v)", l, c, ok)
			}
			seen[l] = true
		}
		if p.Canonical != "" && !scope.Contains(p.Canonical) {
			t.Fatalf("canonical %q out of scope", p.Canonical)
		}
	})
}
