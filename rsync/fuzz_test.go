package rsync

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
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
