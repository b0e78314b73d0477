package hints

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestHTMLHints(t *testing.T) {
	const base = "https://example.org/shrine/index.html"
	tests := []struct {
		name      string
		in        string
		base      string
		wantLinks []string
		wantTitle string
	}{
		{"typical page", `<!DOCTYPE html><html><head><meta charset="utf-8">
			<title>My  Shrine
			</title>
			<link rel="stylesheet" href="/s.css">
			<link rel="resourcesync" href="/.well-known/resourcesync">
			</head><body><p>hi</p></body></html>`, base,
			[]string{"https://example.org/.well-known/resourcesync"}, "My Shrine"},
		{"rel token list and case", `<link rel="alternate ResourceSync" href="a.xml"><LINK REL=RESOURCESYNC HREF="https://other.example/b.xml">`, base,
			[]string{"https://example.org/shrine/a.xml", "https://other.example/b.xml"}, ""},
		{"rel must be a whole token", `<link rel="resourcesync-ish" href="/x.xml"><link rel="notresourcesync" href="/y.xml">`, base, nil, ""},
		{"base href honoured", `<head><base href="https://cdn.example.net/site/"><link rel="resourcesync" href="rs.xml"></head>`, base,
			[]string{"https://cdn.example.net/site/rs.xml"}, ""},
		{"relative base href", `<head><base href="/other/"><link rel="resourcesync" href="rs.xml"></head>`, base,
			[]string{"https://example.org/other/rs.xml"}, ""},
		{"link before base uses the page URL", `<link rel="resourcesync" href="a.xml"><base href="https://cdn.example.net/"><link rel="resourcesync" href="b.xml">`, base,
			[]string{"https://example.org/shrine/a.xml", "https://cdn.example.net/b.xml"}, ""},
		{"only the first base counts", `<base href="/one/"><base href="/two/"><link rel="resourcesync" href="x.xml">`, base,
			[]string{"https://example.org/one/x.xml"}, ""},
		{"stops at body", `<head><title>T</title></head><body><link rel="resourcesync" href="/late.xml"></body>`, base, nil, "T"},
		{"stops at body without head end", `<title>T</title><body><link rel="resourcesync" href="/late.xml">`, base, nil, "T"},
		{"stops after head", `<head></head><link rel="resourcesync" href="/late.xml"><title>Late</title>`, base, nil, ""},
		{"entities and whitespace in title", "<title>\n  Caf&eacute; &amp;\tfriends  </title>", base, nil, "Café & friends"},
		{"tags in title are text", `<title>A <b>bold</b> title</title>`, base, nil, "A <b>bold</b> title"},
		{"first title wins", `<title>One</title><title>Two</title>`, base, nil, "One"},
		{"unclosed title ignored", `<title>never closed`, base, nil, ""},
		{"link in comment or script ignored", `<!-- <link rel="resourcesync" href="/c.xml"> --><script>"<link rel=resourcesync href=/s.xml>"</script>`, base, nil, ""},
		{"duplicates, empty and unsafe hrefs dropped", `<link rel="resourcesync" href="/a.xml"><link rel="resourcesync" href="https://example.org/a.xml">
			<link rel="resourcesync"><link rel="resourcesync" href=""><link rel="resourcesync" href="javascript:alert(1)">
			<link rel="resourcesync" href="data:text/xml,<x/>">`, base,
			[]string{"https://example.org/a.xml"}, ""},
		{"padded href", "<link rel=\"resourcesync\" href=\"\n  /a.xml  \">", base, []string{"https://example.org/a.xml"}, ""},
		{"no base keeps absolute only", `<link rel="resourcesync" href="/a.xml"><link rel="resourcesync" href="https://example.org/b.xml">`, "",
			[]string{"https://example.org/b.xml"}, ""},
		{"self-closing link", `<link rel="resourcesync" href="/a.xml"/>`, base, []string{"https://example.org/a.xml"}, ""},
		{"first duplicate attribute wins", `<link rel="resourcesync" href="/a.xml" href="/b.xml">`, base, []string{"https://example.org/a.xml"}, ""},
		{"empty", ``, base, nil, ""},
		{"not html", "\x00\x01\x02 binary", base, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			links, title := HTMLHints(strings.NewReader(tt.in), tt.base)
			if !reflect.DeepEqual(links, tt.wantLinks) {
				t.Errorf("links = %q, want %q", links, tt.wantLinks)
			}
			if title != tt.wantTitle {
				t.Errorf("title = %q, want %q", title, tt.wantTitle)
			}
		})
	}
}

func TestHTMLHintsCharset(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"utf-8 without meta", "<title>Caf\xc3\xa9 \xe2\x80\x94 ok</title>", "Café — ok"},
		{"utf-8 after a long ASCII head", "<head>" + strings.Repeat("<!-- pad -->", 200) + "<title>\xc3\xa9t\xc3\xa9</title>", "été"},
		{"latin-1 by meta", `<meta charset="iso-8859-1"><title>Caf` + "\xe9</title>", "Café"},
		{"windows-1252 by http-equiv", `<meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><title>` + "\x93q\x94</title>", "“q”"},
		{"undeclared non-UTF-8 read as windows-1252", "<title>Caf\xe9</title>", "Café"},
		{"utf-8 BOM", "\ufeff<title>\xc3\xa9</title>", "é"},
		{"utf-16le BOM", "\xff\xfe<\x00t\x00i\x00t\x00l\x00e\x00>\x00\xe9\x00<\x00/\x00t\x00i\x00t\x00l\x00e\x00>\x00", "é"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, title := HTMLHints(strings.NewReader(tt.in), ""); title != tt.want {
				t.Errorf("title = %q, want %q", title, tt.want)
			}
		})
	}
}

func TestHTMLHintsLimits(t *testing.T) {
	t.Run("bytes read", func(t *testing.T) {
		in := "<head>" + strings.Repeat("<!-- pad -->", MaxHTMLBytes/12+1) +
			`<link rel="resourcesync" href="https://example.org/late.xml"></head>`
		if links, _ := HTMLHints(strings.NewReader(in), ""); links != nil {
			t.Errorf("read past the cap: %q", links)
		}
	})
	t.Run("URL count", func(t *testing.T) {
		var b strings.Builder
		for i := range MaxHintURLs + 10 {
			fmt.Fprintf(&b, `<link rel="resourcesync" href="/%d.xml">`, i)
		}
		links, _ := HTMLHints(strings.NewReader(b.String()), "https://example.org/")
		if len(links) != MaxHintURLs {
			t.Errorf("got %d links, want %d", len(links), MaxHintURLs)
		}
	})
}
