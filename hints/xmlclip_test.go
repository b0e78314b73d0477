package hints

import (
	"encoding/xml"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// readClipped reads doc through ClipXML a byte at a time on both sides, so
// that every state crosses a read.
func readClipped(t *testing.T, doc string, limit int) string {
	t.Helper()
	out, err := io.ReadAll(iotest.OneByteReader(ClipXML(iotest.OneByteReader(strings.NewReader(doc)), limit)))
	if err != nil {
		t.Fatalf("reading %.40q clipped: %v", doc, err)
	}
	return string(out)
}

// tokens decodes doc strictly, as the parsers do, and writes each token
// as a line: "<name a=v>", "</name>", "text", "!comment", "?target data",
// "!!directive".
func tokens(doc string) ([]string, error) { return tokensOf(strings.NewReader(doc)) }

func tokensOf(r io.Reader) ([]string, error) {
	dec := xml.NewDecoder(r)
	var out []string
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			s := "<" + t.Name.Local
			for _, a := range t.Attr {
				s += " " + a.Name.Local + "=" + a.Value
			}
			out = append(out, s+">")
		case xml.EndElement:
			out = append(out, "</"+t.Name.Local+">")
		case xml.CharData:
			out = append(out, string(t))
		case xml.Comment:
			out = append(out, "!"+string(t))
		case xml.ProcInst:
			out = append(out, "?"+t.Target+" "+string(t.Inst))
		case xml.Directive:
			out = append(out, "!!"+string(t))
		}
	}
}

// wellFormed are documents with every construct the clipper follows, each
// value at most 64 bytes.
var wellFormed = []string{
	`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/a?b=1&amp;c=2</loc></url></urlset>`,
	`<!DOCTYPE r [ <!ENTITY x "a > b"> <!-- a <comment> --> <!ELEMENT r (#PCDATA)> ]><r>x</r>`,
	`<r a='1 > 0' b="&#233;t&#xE9;"><![CDATA[<not a tag> ]] ]>]]><!-- - x -->é &lt;ü&gt;</r>`,
	"<r>\r\n  <x/>\n</r>",
}

func TestClipXMLPassesShortValuesWhole(t *testing.T) {
	for _, doc := range wellFormed {
		if got := readClipped(t, doc, 64); got != doc {
			t.Errorf("clipped at 64 bytes:\n%q\nwant it unchanged:\n%q", got, doc)
		}
	}
}

func TestClipXMLCutsLongValues(t *testing.T) {
	const limit = 100
	long := strings.Repeat("a", 10*limit)
	del := string(Clipped)
	for _, tt := range []struct {
		name string
		doc  string
		want []string // the tokens of the clipped document
	}{
		{"text", "<r><loc>" + long + "</loc><b>after</b></r>",
			[]string{"<r>", "<loc>", long[:limit] + del, "</loc>", "<b>", "after", "</b>", "</r>"}},
		{"text exactly at the limit", "<r>" + long[:limit] + "</r>",
			[]string{"<r>", long[:limit], "</r>"}},
		{"a UTF-8 sequence begun before the limit", "<r>" + long[:limit-1] + strings.Repeat("é", limit) + "</r>",
			[]string{"<r>", long[:limit-1] + "é" + del, "</r>"}},
		{"a reference begun before the limit", "<r>" + long[:limit-2] + strings.Repeat("&amp;", limit) + "</r>",
			[]string{"<r>", long[:limit-2] + "&" + del, "</r>"}},
		{"a padded reference too long to finish", "<r>" + long[:limit-1] + "&#" + strings.Repeat("0", 2*maxEntity) + "65;b</r>",
			[]string{"<r>", long[:limit-1] + del, "</r>"}},
		{"an attribute value", `<r a="` + long + `" b='c'/>`,
			[]string{"<r a=" + long[:limit] + del + " b=c>", "</r>"}},
		{"CDATA ending in ]", "<r><![CDATA[" + long + "]]]></r>",
			[]string{"<r>", long[:limit] + del, "</r>"}},
		{"a comment ending in -", "<r><!--" + strings.Repeat("x-", limit) + " --></r>",
			[]string{"<r>", "!" + strings.Repeat("x-", limit/2) + del, "</r>"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tokens(readClipped(t, tt.doc, limit))
			if err != nil {
				t.Fatalf("the clipped document is not well-formed: %v", err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("tokens\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestClipXMLRefusesLongMarkup(t *testing.T) {
	for name, doc := range map[string]string{
		"a tag of many attributes": "<r" + strings.Repeat(` a=""`, MaxMarkup/5+1) + "/>",
		"a processing instruction": "<?x " + strings.Repeat("a", MaxMarkup) + "?><r/>",
		"a DOCTYPE":                "<!DOCTYPE r [" + strings.Repeat(`<!ENTITY a "b">`, MaxMarkup/15+1) + "]><r/>",
	} {
		if _, err := tokensOf(ClipXML(strings.NewReader(doc), 100)); !errors.Is(err, ErrMarkupTooLong) {
			t.Errorf("%s: %v, want ErrMarkupTooLong", name, err)
		}
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

// TestClipXMLMemory: a 45 MB <loc> streams through the decoder without
// being held: without ClipXML, encoding/xml allocates 134 MB for it.
func TestClipXMLMemory(t *testing.T) {
	const size = 45_000_000
	doc := io.MultiReader(strings.NewReader(`<urlset><url><loc>https://example.org/`), &repeated{'a', size}, strings.NewReader(`</loc></url></urlset>`))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	dec := xml.NewDecoder(ClipXML(doc, 4*MaxURLBytes))
	var longest int
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			longest = max(longest, len(cd))
		}
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 1<<20 || longest > 4*MaxURLBytes+1 {
		t.Errorf("a %d-byte <loc> allocated %d bytes, its longest token %d bytes; want under 1 MiB and %d", size, alloc, longest, 4*MaxURLBytes+1)
	}
	t.Logf("%d bytes allocated", alloc)
}
