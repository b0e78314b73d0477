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

func TestInScope(t *testing.T) {
	for _, c := range []struct {
		page, scope string
		want        bool
	}{
		{"https://example.org/a", "https://example.org/", true},
		{"http://www.example.org/a", "https://example.org/", true},
		{"https://example.org/shrine", "https://example.org/shrine/", true},
		{"https://example.org/shrine/x", "https://example.org/shrine/", true},
		{"https://example.org/shrines", "https://example.org/shrine/", false},
		{"https://example.net/shrine/", "https://example.org/shrine/", false},
		{"https://Example.ORG/shrine/x", "https://example.org/shrine/", true},
		{"https://example.org/%zz", "https://example.org/", false},
	} {
		if got := InScope(c.page, c.scope); got != c.want {
			t.Errorf("InScope(%q, %q) = %v", c.page, c.scope, got)
		}
	}
}

func TestIsHostOf(t *testing.T) {
	for _, c := range []struct {
		host, root string
		want       bool
	}{
		{"example.org.", "https://example.org/", true},
		{"EXAMPLE.org", "https://example.org:8443/", true},
		{"www.example.org", "https://example.org/", false},
		{"example.org", "%zz", false},
	} {
		if got := IsHostOf(c.host, c.root); got != c.want {
			t.Errorf("IsHostOf(%q, %q) = %v", c.host, c.root, got)
		}
	}
}

func TestSameDomain(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"https://iiif.museum.org/activity", "https://www.Museum.org/", true},
		{"https://a.github.io/", "https://b.github.io/", false},
		{"https://example.org/", "https://example.net/", false},
		{"http://127.0.0.1:8080/s", "http://127.0.0.1:9090/", true},
		{"http://[::1]:8080/s", "http://[::1]/", true},
		{"https:///x", "https:///x", false},
	} {
		if got := SameDomain(c.a, c.b); got != c.want {
			t.Errorf("SameDomain(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
