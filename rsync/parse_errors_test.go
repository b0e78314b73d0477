package rsync

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestParseErrors(t *testing.T) {
	const u = "https://example.org/cl.xml"
	tests := []struct {
		name    string
		docURL  string
		src     string
		kind    error
		wantMsg string // the exact message, or a prefix when it ends in "…"
	}{
		{"wrong root", u, `<rss version="2.0"><channel/></rss>`, ErrNotSitemap,
			"rsync: https://example.org/cl.xml: root element <rss> is not <urlset> or <sitemapindex>"},
		{"wrong root without URL", "", `<feed xmlns="http://www.w3.org/2005/Atom"/>`, ErrNotSitemap,
			"rsync: root element <feed> is not <urlset> or <sitemapindex>"},
		{"prefixed wrong root", u, `<a:feed xmlns:a="http://www.w3.org/2005/Atom"/>`, ErrNotSitemap,
			"rsync: https://example.org/cl.xml: root element <a:feed> is not <urlset> or <sitemapindex>"},
		{"urlset in a foreign namespace", u, `<urlset xmlns="http://example.com/ns"/>`, ErrNotSitemap,
			`rsync: https://example.org/cl.xml: root element <urlset> is in namespace "http://example.com/ns", not the sitemap namespace`},
		{"urlset in the rs namespace", u, `<rs:urlset xmlns:rs="` + rsNS + `"/>`, ErrNotSitemap,
			`rsync: https://example.org/cl.xml: root element <rs:urlset> is in namespace "` + rsNS + `", not the sitemap namespace`},
		{"xhtml page", u, `<!DOCTYPE html><html><head><title>x</title></head><body/></html>`, ErrNotSitemap,
			"rsync: https://example.org/cl.xml: root element <html> is not <urlset> or <sitemapindex>"},
		{"mismatched end tag", u, `<urlset><url></urlset>`, ErrMalformed,
			"rsync: https://example.org/cl.xml: not well-formed XML: XML syntax error on line 1: element <url> closed by </urlset>"},
		{"unclosed root", u, `<urlset><url><loc>x</loc></url>`, ErrMalformed,
			"rsync: https://example.org/cl.xml: not well-formed XML: …"},
		{"bad attribute", u, `<urlset a=b/>`, ErrMalformed,
			"rsync: https://example.org/cl.xml: not well-formed XML: …"},
		{"invalid UTF-8", u, "<urlset><url><loc>\xff</loc></url></urlset>", ErrMalformed,
			"rsync: https://example.org/cl.xml: not well-formed XML: …"},
		{"unknown charset", u, `<?xml version="1.0" encoding="x-no-such-charset"?><urlset/>`, ErrMalformed,
			"rsync: https://example.org/cl.xml: not well-formed XML: …"},
		{"two roots", u, `<urlset/><urlset/>`, ErrMalformed,
			"rsync: https://example.org/cl.xml: not well-formed XML: more than one root element"},
		{"text after root", u, `<urlset/>trailing junk`, ErrMalformed,
			"rsync: https://example.org/cl.xml: not well-formed XML: text outside the root element"},
		{"text only", u, `just words`, ErrMalformed,
			"rsync: https://example.org/cl.xml: not well-formed XML: text outside the root element"},
		{"empty", u, ``, ErrEmpty, "rsync: https://example.org/cl.xml: empty document"},
		{"whitespace only", u, " \n\t ", ErrEmpty, "rsync: https://example.org/cl.xml: empty document"},
		{"BOM only", u, "\ufeff", ErrEmpty, "rsync: https://example.org/cl.xml: empty document"},
		{"declaration and comment only", u, `<?xml version="1.0"?><!-- soon -->`, ErrEmpty,
			"rsync: https://example.org/cl.xml: empty document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse(strings.NewReader(tt.src), tt.docURL)
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", doc)
			}
			if doc != nil {
				t.Errorf("Parse returned a document with its error")
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.kind)
			}
			if prefix, ok := strings.CutSuffix(tt.wantMsg, "…"); ok {
				if !strings.HasPrefix(err.Error(), prefix) || len(err.Error()) == len(prefix) {
					t.Errorf("error = %q, want %q followed by a cause", err, prefix)
				}
			} else if err.Error() != tt.wantMsg {
				t.Errorf("error = %q\nwant    %q", err, tt.wantMsg)
			}
		})
	}
}

// TestParseNoEntityExpansion checks that entity declarations in a DTD are
// never honoured, so neither exponential expansion nor external entities
// can be triggered by a document.
func TestParseNoEntityExpansion(t *testing.T) {
	laughs := `<?xml version="1.0"?>
<!DOCTYPE urlset [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/&lol9;</loc></url></urlset>`
	xxe := `<?xml version="1.0"?>
<!DOCTYPE urlset [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/&xxe;</loc></url></urlset>`
	internal := `<?xml version="1.0"?>
<!DOCTYPE urlset [ <!ENTITY host "https://evil.example/"> ]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>&host;</loc></url></urlset>`
	undefined := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/&nbsp;</loc></url></urlset>`
	for name, src := range map[string]string{
		"billion laughs": laughs, "external entity": xxe, "internal entity": internal, "undefined entity": undefined,
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			doc, err := Parse(strings.NewReader(src), "https://example.org/cl.xml")
			if err == nil {
				t.Fatalf("Parse expanded or ignored an entity: %+v", doc.Entries)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v is not ErrMalformed", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Parse took %v", d)
			}
		})
	}
}

// TestParseDTDWithoutReferences checks that a DTD alone is harmless: only
// references to its entities fail, and the predefined XML entities work.
func TestParseDTDWithoutReferences(t *testing.T) {
	src := `<?xml version="1.0"?>
<!DOCTYPE urlset [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/?a=1&amp;b=&#50;</loc></url></urlset>`
	doc, err := Parse(strings.NewReader(src), "https://example.org/cl.xml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(doc.Entries) != 1 || doc.Entries[0].Loc != "https://example.org/?a=1&b=2" {
		t.Errorf("entries = %+v", doc.Entries)
	}
}

func TestParseReadError(t *testing.T) {
	errCap := errors.New("body exceeds 10 MiB")
	r := io.MultiReader(strings.NewReader(`<urlset xmlns="`+sm09+`"><url><loc>`), iotest.ErrReader(errCap))
	_, err := Parse(r, "https://example.org/cl.xml")
	if !errors.Is(err, errCap) {
		t.Fatalf("error %v does not wrap the reader's error", err)
	}
	if errors.Is(err, ErrMalformed) {
		t.Errorf("a read error is reported as malformed XML: %v", err)
	}
	if want := "rsync: https://example.org/cl.xml: read: body exceeds 10 MiB"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestParseDeepNesting(t *testing.T) {
	src := `<urlset xmlns="` + sm09 + `">` + strings.Repeat("<a>", 5000) + strings.Repeat("</a>", 5000) + `</urlset>`
	if _, err := Parse(strings.NewReader(src), "https://example.org/cl.xml"); !errors.Is(err, ErrMalformed) {
		t.Errorf("error = %v, want ErrMalformed for 5000 levels", err)
	}
}
