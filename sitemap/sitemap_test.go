package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`

func urlset(entries ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><urlset ` + ns + ` xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">` +
		strings.Join(entries, "") + `</urlset>`
}

func entry(loc, lastmod string) string {
	s := "<url><loc>" + loc + "</loc>"
	if lastmod != "" {
		s += "<lastmod>" + lastmod + "</lastmod>"
	}
	return s + "</url>"
}

func TestParseURLSet(t *testing.T) {
	doc, err := Parse(strings.NewReader(urlset(
		entry("https://example.org/", "2024-05-01"),
		entry(" https://example.org/a.html ", "2024-05-02T10:00:00+02:00"),
		`<url><loc>https://example.org/img/</loc><image:image><image:loc>https://cdn.example.net/x.png</image:loc></image:image></url>`,
		entry("https://example.org/bad-date", "last tuesday"),
		entry("https://example.org/a.html", ""),
		entry("/relative", ""),
		entry("https://other.example/", ""),
		entry("http://127.0.0.1:8000/draft/", ""),
		entry("https://example.org/c#1/", ""),
	)), Options{Scope: "https://example.org/"})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Index {
		t.Error("a urlset was read as an index")
	}
	var got []string
	for _, u := range doc.URLs {
		lm := "-"
		if u.Lastmod != nil {
			lm = u.Lastmod.Format("2006-01-02T15:04Z07:00")
		}
		got = append(got, u.Loc+" "+lm)
	}
	want := []string{
		"https://example.org/ 2024-05-01T00:00Z",
		"https://example.org/a.html 2024-05-02T08:00Z",
		"https://example.org/img/ -",
		"https://example.org/bad-date -",
		"https://example.org/c%231/ -",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("urls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	want2 := Skips{OtherHost: 2, Invalid: 1, Duplicate: 1, BadLastmod: 1}
	if doc.Skipped != want2 {
		t.Errorf("skipped %+v, want %+v", doc.Skipped, want2)
	}
}

func TestParseScope(t *testing.T) {
	doc, err := Parse(strings.NewReader(urlset(
		entry("https://user.github.io/project/", ""),
		entry("https://user.github.io/project/docs/a/", ""),
		entry("https://user.github.io/project", ""),
		entry("https://user.github.io/other/", ""),
		entry("https://user.github.io/projectile/", ""),
		entry("https://www.user.github.io/project/b", ""),
	)), Options{Scope: "https://user.github.io/project/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.URLs) != 4 || doc.Skipped.OutOfScope != 2 {
		t.Errorf("kept %v, skipped %+v; want 4 kept and 2 out of scope", doc.URLs, doc.Skipped)
	}
}

func TestParseIndex(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`<sitemapindex ` + ns + `>`)
	sb.WriteString(`<sitemap><loc>https://example.org/sitemap_index.xml</loc></sitemap>`)
	sb.WriteString(`<sitemap><loc>https://evil.example/s.xml</loc></sitemap>`)
	for i := range 10_000 {
		fmt.Fprintf(&sb, `<sitemap><loc>https://example.org/s%d.xml</loc><lastmod>2024-01-01</lastmod></sitemap>`, i)
	}
	sb.WriteString(`</sitemapindex>`)
	doc, err := Parse(strings.NewReader(sb.String()), Options{Scope: "https://example.org/", MaxChildren: 50})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Index || len(doc.Children) != 50 || doc.Children[0] != "https://example.org/sitemap_index.xml" {
		t.Fatalf("index %v with %d children (first %q), want 50", doc.Index, len(doc.Children), doc.Children[0])
	}
	if doc.Skipped.OverCap != 9951 || doc.Skipped.OtherHost != 1 {
		t.Errorf("skipped %+v", doc.Skipped)
	}
}

func TestParseGzipAndCaps(t *testing.T) {
	plain := urlset(entry("https://example.org/a", "2024-01-01"), entry("https://example.org/b", ""))
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(plain))
	zw.Close()
	doc, err := Parse(bytes.NewReader(zb.Bytes()), Options{})
	if err != nil || len(doc.URLs) != 2 {
		t.Fatalf("gzip sitemap: %v, %v", doc, err)
	}
	// A gzip bomb: small compressed, huge once inflated.
	zb.Reset()
	zw = gzip.NewWriter(&zb)
	zw.Write([]byte(`<urlset ` + ns + `><url><loc>https://example.org/`))
	zw.Write(bytes.Repeat([]byte("a"), 4<<20))
	zw.Write([]byte(`</loc></url></urlset>`))
	zw.Close()
	if _, err := Parse(bytes.NewReader(zb.Bytes()), Options{MaxBytes: 1 << 20}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a sitemap past the size cap: %v, want ErrTooLarge", err)
	}
	doc, err = Parse(strings.NewReader(urlset(entry("https://example.org/"+strings.Repeat("x", 3000), ""), entry("https://example.org/", ""))), Options{MaxURLs: 1})
	if err != nil || len(doc.URLs) != 1 || doc.Skipped.Invalid != 1 {
		t.Errorf("a too long URL: %+v, %v", doc, err)
	}
	doc, err = Parse(strings.NewReader(urlset(entry("https://example.org/a", ""), entry("https://example.org/b", ""))), Options{MaxURLs: 1})
	if err != nil || len(doc.URLs) != 1 || doc.Skipped.OverCap != 1 {
		t.Errorf("past MaxURLs: %+v, %v", doc, err)
	}
}

func TestParseNotSitemap(t *testing.T) {
	for _, in := range []string{
		`<!doctype html><html><head><title>Log in</title></head><body>Please log in</body></html>`,
		`<html><body>hi</body></html>`,
		`<rss version="2.0"><channel/></rss>`,
		``,
	} {
		if _, err := Parse(strings.NewReader(in), Options{}); !errors.Is(err, ErrNotSitemap) && (err == nil || !strings.Contains(err.Error(), "XML")) {
			t.Errorf("%q: %v, want not a sitemap", in, err)
		}
	}
	if _, err := Parse(strings.NewReader(`<urlset `+ns+`><url><loc>https://example.org/</loc>`), Options{}); err == nil {
		t.Error("a truncated sitemap was accepted")
	}
	doc, err := Parse(strings.NewReader(`<?xml version="1.0" encoding="ISO-8859-1"?><urlset `+ns+"><url><loc>https://example.org/caf\xe9</loc></url></urlset>"), Options{})
	if err != nil || len(doc.URLs) != 1 || doc.URLs[0].Loc != "https://example.org/caf%C3%A9" && doc.URLs[0].Loc != "https://example.org/café" {
		t.Errorf("latin-1 sitemap: %+v, %v", doc, err)
	}
}

func BenchmarkParse50k(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`<urlset ` + ns + `>`)
	for i := range MaxURLs {
		fmt.Fprintf(&sb, "<url><loc>https://example.org/posts/%06d/</loc><lastmod>2024-05-01T10:00:00Z</lastmod></url>\n", i)
	}
	sb.WriteString(`</urlset>`)
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := Parse(bytes.NewReader(data), Options{Scope: "https://example.org/"})
		if err != nil || len(doc.URLs) != MaxURLs {
			b.Fatal(err)
		}
	}
}

func TestParseNamespaces(t *testing.T) {
	doc, err := Parse(strings.NewReader(`<x:urlset xmlns:x="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:y="urn:other">
<x:url><x:loc>https://example.org/a</x:loc><y:loc>https://example.org/not-this</y:loc></x:url>
<x:url><y:loc>https://example.org/b</y:loc></x:url></x:urlset>`), Options{})
	if err != nil || len(doc.URLs) != 1 || doc.URLs[0].Loc != "https://example.org/a" || doc.Skipped.Invalid != 1 {
		t.Errorf("prefixed sitemap: %+v, %v", doc, err)
	}
	if _, err := Parse(strings.NewReader(`<y:urlset xmlns:y="urn:other"/>`), Options{}); !errors.Is(err, ErrNotSitemap) {
		t.Errorf("a urlset in another namespace: %v", err)
	}
	for _, bad := range []string{
		`<urlset ` + ns + `><url><loc>https://example.org/</loc></urlset>`,
		`<urlset ` + ns + `></urlset><urlset ` + ns + `></urlset>`,
	} {
		if _, err := Parse(strings.NewReader(bad), Options{}); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}

// TestParseLongValues: a <loc> or <lastmod> past the field's cap is
// skipped, whether it comes in one piece or in several (CDATA, comments),
// and the entries around it are kept.
func TestParseLongValues(t *testing.T) {
	long := strings.Repeat("a", 3*maxField)
	doc, err := Parse(strings.NewReader(urlset(
		entry("https://example.org/"+long, ""),
		entry("https://example.org/b<![CDATA["+long+"]]>", ""),
		entry("https://example.org/c<!-- -->"+long[:maxField-10], ""),
		entry("https://example.org/d", "2024-05-01<!-- -->"+long),
		entry("https://example.org/e", "2024-05-01"),
	)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range doc.URLs {
		got = append(got, fmt.Sprintf("%s %v", u.Loc, u.Lastmod != nil))
	}
	if want := "https://example.org/d false\nhttps://example.org/e true"; strings.Join(got, "\n") != want || doc.Skipped.Invalid != 3 || doc.Skipped.BadLastmod != 1 {
		t.Errorf("kept\n%s\nskipped %+v; want\n%s\nand 3 invalid, 1 bad lastmod", strings.Join(got, "\n"), doc.Skipped, want)
	}
}

// repeated is n bytes of b, made as they are read.
type repeated struct {
	b byte
	n int64
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), r.n))
	for i := range k {
		p[i] = r.b
	}
	r.n -= int64(k)
	return k, nil
}

// TestParseLongLocMemory: a 45 MB <loc> is skipped as it streams by. The
// decoder held it whole before: 134 MB allocated, for a value refused past
// 2,048 bytes.
func TestParseLongLocMemory(t *testing.T) {
	in := io.MultiReader(
		strings.NewReader(`<?xml version="1.0"?><urlset `+ns+`><url><loc>https://example.org/a</loc></url><url><loc>https://example.org/`),
		&repeated{'a', 45_000_000},
		strings.NewReader(`</loc></url><url><loc>https://example.org/b</loc></url></urlset>`))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	doc, err := Parse(in, Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.URLs) != 2 || doc.Skipped.Invalid != 1 {
		t.Errorf("kept %d URLs, skipped %+v; want 2 kept and the long one invalid", len(doc.URLs), doc.Skipped)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("parsing a 45 MB <loc> allocated %d bytes, want under 1 MiB", alloc)
	}
}
