package crawl

import (
	"fmt"
	"reflect"
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

func TestScope(t *testing.T) {
	for _, tc := range []struct{ page, scope string }{
		{"https://host/shrine/", "https://host/shrine/"},
		{"https://host/shrine/index.html", "https://host/shrine/"},
		{"https://host/shrine/cats.html", "https://host/shrine/"},
		{"https://user.github.io/project/", "https://user.github.io/project/"},
		{"https://host", "https://host/"},
		{"https://host/about.html", "https://host/"},
	} {
		s, ok := ScopeOf(tc.page)
		if !ok || s.URL() != tc.scope {
			t.Errorf("ScopeOf(%q) = %q, want %q", tc.page, s.URL(), tc.scope)
		}
	}
	s, _ := ScopeOf("https://host/shrine/")
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

func TestTrap(t *testing.T) {
	for u, want := range map[string]bool{
		"https://h/a/a/a/":                                 true,
		"https://h/a/b/a/c/a/":                             true,
		"https://h/2024/01/01/post.html":                   false,
		"https://h/" + strings.Repeat("x/", maxSegments+1): true,
		"https://h/docs/guide/intro/":                      false,
	} {
		if Trap(u) != want {
			t.Errorf("Trap(%q) = %v, want %v", u, !want, want)
		}
	}
}

func TestParse(t *testing.T) {
	scope, _ := ScopeOf("https://host/shrine/")
	page := `<html><head><base href="https://host/shrine/sub/"><link rel="canonical" href="/shrine/sub/"></head><body>
<a href="a.html">a</a> <a href="./a.html#top">a again</a> <a href="../b/">b</a> <a href="../b/index.html">b again</a>
<a href="/elsewhere/">out of scope</a> <a href="http://127.0.0.1:8000/shrine/x.html">dev host</a>
<a href="pic.PNG">picture</a> <a href="doc.pdf">pdf</a> <a href="mailto:a@b">mail</a> <a href="javascript:go()">js</a>
<a rel="nofollow" href="secret.html">secret</a> <a href="c.html?x=1">query</a> <a href="../a/a/a/x.html">trap</a>
<area href="map.html"><iframe src="nav.html"></iframe><iframe src="https://video.example/embed"></iframe><form><input type=password name=p></form></body></html>`
	got := Parse([]byte(page), "https://host/shrine/sub/page.html", scope)
	want := Page{
		Links:     []string{"https://host/shrine/sub/a.html", "https://host/shrine/b/", "https://host/shrine/sub/map.html", "https://host/shrine/sub/nav.html", "https://host/shrine/sub/c.html"},
		Canonical: "https://host/shrine/sub/",
		SignIn:    true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
	}
}

// TestParseQueries: a page whose links all carry a query string keeps
// them (index.php?page= sites); one with plain links too keeps only the
// plain ones and the bare paths.
func TestParseQueries(t *testing.T) {
	scope, _ := ScopeOf("https://host/")
	only := Parse([]byte(`<a href="index.php?page=about">a</a><a href="index.php?page=cats">c</a>`), "https://host/", scope)
	if want := []string{"https://host/index.php?page=about", "https://host/index.php?page=cats"}; !reflect.DeepEqual(only.Links, want) {
		t.Errorf("query-only page: %q, want %q", only.Links, want)
	}
	mixed := Parse([]byte(`<a href="/about.html">a</a><a href="/calendar?month=2026-01">next</a><a href="/calendar?month=2026-02">next</a>`), "https://host/", scope)
	if want := []string{"https://host/about.html", "https://host/calendar"}; !reflect.DeepEqual(mixed.Links, want) {
		t.Errorf("mixed page: %q, want %q", mixed.Links, want)
	}
}

func TestParseCapsLinks(t *testing.T) {
	scope, _ := ScopeOf("https://host/")
	var sb strings.Builder
	for i := range 3 * MaxLinks {
		fmt.Fprintf(&sb, `<a href="/p%d.html">%d</a>`, i, i)
	}
	p := Parse([]byte(sb.String()), "https://host/", scope)
	if len(p.Links) != MaxLinks || p.Dropped != 2*MaxLinks || p.Links[0] != "https://host/p0.html" {
		t.Errorf("%d links kept, %d dropped, first %q; want %d, %d, /p0.html", len(p.Links), p.Dropped, p.Links[0], MaxLinks, 2*MaxLinks)
	}
}

func TestNotFound(t *testing.T) {
	for _, tc := range []struct {
		title, line string
		want        bool
	}{
		{"Page not found", "", true},
		{"404", "", true},
		{"Oops", "Error 404: this page does not exist", true},
		{"Ann's shrine", "Welcome", false},
		{"Cats 4040", "", false},
		{"Error 404", "", true},
		{"404 - Page", "", true},
		{"Room 404 – Ann's shrine", "Welcome to room 404", false},
		{"The 404 club", "", false},
	} {
		if got := NotFound(tc.title, tc.line); got != tc.want {
			t.Errorf("NotFound(%q, %q) = %v, want %v", tc.title, tc.line, got, tc.want)
		}
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
