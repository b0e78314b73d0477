package urls

import "testing"

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ raw, root, input, err string }{
		{"Example.ORG/Shrine/#top", "https://example.org/", "https://example.org/Shrine/", ""},
		{" http://example.org:8080", "http://example.org:8080/", "http://example.org:8080/", ""},
		{"", "", "", "no address was given"},
		{"ftp://example.org/", "", "", `"ftp://example.org/" is not an http or https address`},
		{"mailto:ann@example.org", "", "", `"mailto:ann@example.org" contains a user name; give the site's address without it`},
		{"https:///x", "", "", `"https:///x" has no host name`},
	} {
		root, input, err := Normalize(tc.raw)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if root != tc.root || input != tc.input || msg != tc.err {
			t.Errorf("Normalize(%q) = %q, %q, %q; want %q, %q, %q", tc.raw, root, input, msg, tc.root, tc.input, tc.err)
		}
	}
}

func TestScopeHostKeyOnSite(t *testing.T) {
	for in, want := range map[string]string{
		"https://user.github.io/project":             "https://user.github.io/project/",
		"https://user.github.io/project/":            "https://user.github.io/project/",
		"https://user.github.io/project/sitemap.xml": "https://user.github.io/project/",
		"https://example.org/index.html":             "https://example.org/",
		"https://example.org":                        "https://example.org/",
	} {
		if got := Scope(in); got != want {
			t.Errorf("Scope(%q) = %q, want %q", in, got, want)
		}
	}
	if got := HostKey("http://127.0.0.1:8080/x"); got != "127.0.0.1:8080" {
		t.Errorf("HostKey = %q, want the host and its port", got)
	}
	if !OnSite("https://www.example.org/a", "https://cdn.example.net/list.xml", "https://example.org/") {
		t.Error("a page of the site, www. or not, is its own")
	}
	if OnSite("https://victim.example/a", "https://example.org/list.xml", "https://example.org/") {
		t.Error("a page on another host is not the site's")
	}
}
