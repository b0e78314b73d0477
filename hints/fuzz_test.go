package hints

import (
	"strings"
	"testing"
)

// FuzzParseW3CDatetime checks that parsing never panics and that every
// accepted value is returned in UTC.
func FuzzParseW3CDatetime(f *testing.F) {
	for _, s := range []string{"1997", "1997-07-16T19:20:30.45+01:00", "2022-11-06t10:00z", "x", "9999-12-31T23:59:59-23:59"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := ParseW3CDatetime(s)
		if err == nil && tm.Location().String() != "UTC" {
			t.Fatalf("%q parsed to %v, not UTC", s, tm)
		}
	})
}

// FuzzHints checks that the discovery helpers never panic and only return
// http and https URLs.
func FuzzHints(f *testing.F) {
	f.Add(`<head><base href="/b/"><link rel="resourcesync" href="x.xml"><title>t</title></head>`)
	f.Add("Sitemap: /a.xml\n# c\nsitemap:https://example.org/b.xml")
	f.Add(`</a.xml>; rel="resourcesync", <b>; title="a,\"b"; rel=x`)
	f.Fuzz(func(t *testing.T, s string) {
		const base = "https://example.org/p"
		links, _ := HTMLHints(strings.NewReader(s), base)
		links = append(links, RobotsSitemaps(strings.NewReader(s), base)...)
		links = append(links, LinkHeader([]string{s}, base, "resourcesync")...)
		for _, l := range links {
			if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
				t.Fatalf("non-http URL %q from %q", l, s)
			}
		}
	})
}
