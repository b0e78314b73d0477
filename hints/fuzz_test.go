package hints

import (
	"io"
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

// FuzzClipXML checks that ClipXML passes a document whose values fit
// whole, and that a well-formed document stays well-formed however short
// its values are cut.
func FuzzClipXML(f *testing.F) {
	for _, doc := range wellFormed {
		f.Add(doc, uint8(3))
	}
	f.Add("<r a='x&amp;y'><![CDATA[]]]]><!---x--></r>", uint8(1))
	f.Fuzz(func(t *testing.T, doc string, limit uint8) {
		out, err := io.ReadAll(ClipXML(strings.NewReader(doc), len(doc)))
		if err != nil || string(out) != doc {
			t.Fatalf("with room for every value, %q became %q (%v)", doc, out, err)
		}
		if _, err := tokens(doc); err != nil {
			return
		}
		clipped, err := io.ReadAll(ClipXML(strings.NewReader(doc), int(limit)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tokens(string(clipped)); err != nil {
			t.Fatalf("%q clipped at %d bytes is %q: %v", doc, limit, clipped, err)
		}
	})
}
