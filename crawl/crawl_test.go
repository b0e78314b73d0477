package crawl

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"tidings/urls"
)

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
	scope, _ := urls.WatchScopeOf("https://host/shrine/")
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
	scope, _ := urls.WatchScopeOf("https://host/")
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
	scope, _ := urls.WatchScopeOf("https://host/")
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
