package rsync

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, and that a successful
// parse always yields a document with a root and entries that have a loc.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.xml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "\ufeff", "<urlset/>", "<sitemapindex/>", "<rss/>", "<urlset><url></urlset>",
		`<urlset xmlns:x="` + rsNS + `"><x:md at="x" from="2024"/><url><loc>/a</loc><x:md length="-"/></url></urlset>`,
		"\xff\xfe<\x00u\x00r\x00l\x00s\x00e\x00t\x00/\x00>\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(bytes.NewReader(data), "https://example.org/dir/cl.xml")
		if err != nil {
			if doc != nil {
				t.Fatal("document returned with an error")
			}
			return
		}
		if doc.Root != RootURLSet && doc.Root != RootSitemapIndex {
			t.Fatalf("root %q", doc.Root)
		}
		for _, e := range doc.Entries {
			if e.Loc == "" {
				t.Fatal("entry without loc")
			}
		}
	})
}

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

// FuzzPlainAbsURL checks that whatever plainAbsURL lets through unparsed is
// exactly what the full parse and resolution would have made of it.
func FuzzPlainAbsURL(f *testing.F) {
	for _, s := range []string{
		"https://example.org/a/b.html", "http://127.0.0.1:8080/x", "https://example.org/", "https://example.org/a//b/",
		"https://example.org/a/./b", "https://example.org/a/../b", "https://example.org/.well-known/x",
		"https://Example.ORG/A", "http://a:/", "http://a:b/", "https://example.org/%41", "https://example.org/a?b",
	} {
		f.Add(s)
	}
	base, _ := url.Parse("https://base.example/dir/cl.xml")
	f.Fuzz(func(t *testing.T, ref string) {
		if !plainAbsURL(ref) {
			return
		}
		u, err := url.Parse(ref)
		if err != nil {
			t.Fatalf("plainAbsURL(%q) = true but url.Parse fails: %v", ref, err)
		}
		if got := base.ResolveReference(u).String(); got != ref {
			t.Fatalf("plainAbsURL(%q) = true but it resolves to %q", ref, got)
		}
	})
}
