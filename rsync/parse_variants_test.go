package rsync

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"
)

const (
	sm09 = `http://www.sitemaps.org/schemas/sitemap/0.9`
	rsNS = `http://www.openarchives.org/rs/terms/`
)

// TestParseNamespaceVariants feeds the same small change list written in
// every namespace style seen in the wild; all must parse the same.
func TestParseNamespaceVariants(t *testing.T) {
	tests := []struct {
		name string
		doc  string
	}{
		{"rs prefix", `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
			<rs:md capability="changelist"/><rs:ln rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><rs:md change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"x prefix", `<urlset xmlns="` + sm09 + `" xmlns:x="` + rsNS + `">
			<x:md capability="changelist"/><x:ln rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><x:md change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"rs as default namespace on its elements", `<urlset xmlns="` + sm09 + `">
			<md xmlns="` + rsNS + `" capability="changelist"/><ln xmlns="` + rsNS + `" rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><md xmlns="` + rsNS + `" change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"rs declared on the element", `<urlset xmlns="` + sm09 + `">
			<rs:md xmlns:rs="` + rsNS + `" capability="changelist"/><q:ln xmlns:q="` + rsNS + `" rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><rs:md xmlns:rs="` + rsNS + `" change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"rs prefix bound elsewhere is ignored", `<urlset xmlns="` + sm09 + `" xmlns:rs="http://example.com/not-rs" xmlns:x="` + rsNS + `">
			<rs:md capability="bogus"/><x:md capability="changelist"/><rs:ln rel="up" href="/wrong.xml"/><x:ln rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><rs:md change="deleted"/><x:md change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"rs namespace without trailing slash", `<urlset xmlns="` + sm09 + `" xmlns:rs="http://www.openarchives.org/rs/terms">
			<rs:md capability="changelist"/><rs:ln rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><rs:md change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"https sitemap namespace", `<urlset xmlns="https://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="` + rsNS + `">
			<rs:md capability="changelist"/><rs:ln rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><rs:md change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"sitemap namespace with trailing slash", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9/" xmlns:rs="` + rsNS + `">
			<rs:md capability="changelist"/><rs:ln rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><rs:md change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"google 0.84 namespace", `<urlset xmlns="http://www.google.com/schemas/sitemap/0.84" xmlns:rs="` + rsNS + `">
			<rs:md capability="changelist"/><rs:ln rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><rs:md change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"no sitemap namespace", `<urlset xmlns:rs="` + rsNS + `">
			<rs:md capability="changelist"/><rs:ln rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><rs:md change="updated" datetime="2024-01-02"/></url></urlset>`},
		{"prefixed sitemap namespace", `<sm:urlset xmlns:sm="` + sm09 + `" xmlns:rs="` + rsNS + `">
			<rs:md capability="changelist"/><rs:ln rel="up" href="/cap.xml"/>
			<sm:url><sm:loc>/a</sm:loc><rs:md change="updated" datetime="2024-01-02"/></sm:url></sm:urlset>`},
		{"repeated rs:md merged", `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
			<rs:md capability=""/><rs:md capability="changelist"/><rs:md capability="resourcelist"/><rs:ln rel="UP" href="/cap.xml"/>
			<url><loc>/a</loc><rs:md change="updated"/><rs:md change="deleted" datetime="2024-01-02"/></url></urlset>`},
		{"padded and CDATA values", `<?xml version="1.0"?>
			<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
			<rs:md capability=" changelist "/><rs:ln rel="up" href="  /cap.xml
			"/>
			<url><loc><![CDATA[
			   /a   ]]></loc><rs:md change="updated" datetime=" 2024-01-02 "/></url></urlset>`},
		{"entry with unknown children", `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
			<rs:md capability="changelist"/><rs:ln rel="up" href="/cap.xml"/>
			<url><loc>/a</loc><image:image><image:loc>/img.png</image:loc></image:image><changefreq>daily</changefreq>
			<rs:md change="updated" datetime="2024-01-02"/></url></urlset>`},
	}
	want := &Document{
		URL: "https://example.org/cl.xml", Root: RootURLSet, Capability: CapChangeList,
		Links: []Link{{Rel: "up", Href: "https://example.org/cap.xml"}},
		Entries: []Entry{{
			Loc: "https://example.org/a", Change: ChangeUpdated, Datetime: tp(t, "2024-01-02T00:00:00Z"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse(strings.NewReader(tt.doc), "https://example.org/cl.xml")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			sameDoc(t, doc, want)
		})
	}
}

func TestParseRelativeLoc(t *testing.T) {
	tests := []struct {
		name, docURL, loc, want string
	}{
		{"relative path", "https://example.org/dir/cl.xml", "a/b.html", "https://example.org/dir/a/b.html"},
		{"parent path", "https://example.org/dir/cl.xml", "../x.html", "https://example.org/x.html"},
		{"root path", "https://example.org/dir/cl.xml", "/x.html", "https://example.org/x.html"},
		{"scheme-relative", "https://example.org/cl.xml", "//cdn.example.net/x", "https://cdn.example.net/x"},
		{"newlines and tabs", "https://example.org/dir/cl.xml", "\n\t  https://example.org/y \n", "https://example.org/y"},
		{"absolute kept", "https://example.org/cl.xml", "http://other.example/p?q=1&r=2", "http://other.example/p?q=1&r=2"},
		{"no base", "", "/x.html", "/x.html"},
		{"relative base ignored", "cl.xml", "x.html", "x.html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := strings.ReplaceAll(tt.loc, "&", "&amp;")
			src := `<urlset xmlns="` + sm09 + `"><url><loc>` + loc + `</loc></url></urlset>`
			doc, err := Parse(strings.NewReader(src), tt.docURL)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(doc.Entries) != 1 || doc.Entries[0].Loc != tt.want {
				t.Errorf("entries = %+v, want one with loc %q", doc.Entries, tt.want)
			}
		})
	}
}

func TestParseUTF16(t *testing.T) {
	src := `<?xml version="1.0" encoding="UTF-16"?>` +
		`<urlset xmlns="` + sm09 + `"><url><loc>https://example.org/ÿ</loc></url></urlset>`
	for _, order := range []binary.AppendByteOrder{binary.BigEndian, binary.LittleEndian} {
		t.Run(order.String(), func(t *testing.T) {
			var buf bytes.Buffer
			for _, u := range utf16.Encode([]rune("\ufeff" + src)) {
				buf.Write(order.AppendUint16(nil, u))
			}
			doc, err := Parse(&buf, "https://example.org/cl.xml")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(doc.Entries) != 1 || doc.Entries[0].Loc != "https://example.org/%C3%BF" {
				t.Errorf("entries = %+v", doc.Entries)
			}
		})
	}
}

func TestParseWindows1252(t *testing.T) {
	src := "<?xml version='1.0' encoding='windows-1252'?>\n" +
		`<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">` +
		"<rs:ln rel=\"describedby\" href=\"https://example.org/\x93q\x94\"/></urlset>"
	doc, err := Parse(strings.NewReader(src), "https://example.org/cl.xml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got, want := doc.Link("describedby"), "https://example.org/%E2%80%9Cq%E2%80%9D"; got != want {
		t.Errorf("describedby = %q, want %q", got, want)
	}
}
