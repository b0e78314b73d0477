package opml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"tidings/feeds"
)

// testOPML is how an independent reader sees an OPML document.
type testOPML struct {
	XMLName xml.Name `xml:"opml"`
	Version string   `xml:"version,attr"`
	Head    struct {
		Title       string `xml:"title"`
		DateCreated string `xml:"dateCreated"`
		OwnerName   string `xml:"ownerName"`
	} `xml:"head"`
	Body struct {
		Outlines []testOutline `xml:"outline"`
	} `xml:"body"`
}

type testOutline struct {
	Type     string        `xml:"type,attr"`
	Text     string        `xml:"text,attr"`
	Title    string        `xml:"title,attr"`
	XMLURL   string        `xml:"xmlUrl,attr"`
	HTMLURL  string        `xml:"htmlUrl,attr"`
	Outlines []testOutline `xml:"outline"`
}

func sampleSites() []Site {
	return []Site{
		{
			Title:   "My Shrine",
			HTMLURL: "https://shrine.example/",
			Feeds: []Feed{
				{Title: "My Shrine: friends", XMLURL: "https://tidings.example/feeds/7.atom"},
				{Title: "My Shrine: art", XMLURL: "https://tidings.example/feeds/8.atom", HTMLURL: "https://shrine.example/art/"},
			},
		},
		{
			HTMLURL: "https://garden.example/",
			Feeds:   []Feed{{XMLURL: "https://tidings.example/feeds/9.atom"}},
		},
		{Title: "No feeds yet", HTMLURL: "https://empty.example/"},
	}
}

func writeOPML(t *testing.T, title, owner string, created time.Time, sites []Site) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, title, owner, created, sites); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func decodeOPML(t *testing.T, out []byte) *testOPML {
	t.Helper()
	wellFormed(t, out)
	var doc testOPML
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("xml.Unmarshal: %v\n%s", err, out)
	}
	return &doc
}

func TestWriteExact(t *testing.T) {
	sites := []Site{{Title: "Shrine", HTMLURL: "https://shrine.example/", Feeds: []Feed{
		{Title: "Shrine & co", XMLURL: "https://tidings.example/feeds/7.atom"},
	}}}
	got := string(writeOPML(t, "My follows", "Ana", day2, sites))
	want := `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head>
    <title>My follows</title>
    <dateCreated>Thu, 02 May 2024 18:05:07 GMT</dateCreated>
    <ownerName>Ana</ownerName>
  </head>
  <body>
    <outline text="Shrine">
      <outline type="rss" text="Shrine &amp; co" title="Shrine &amp; co" xmlUrl="https://tidings.example/feeds/7.atom" htmlUrl="https://shrine.example/"></outline>
    </outline>
  </body>
</opml>
`
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteReadBack(t *testing.T) {
	paris := time.FixedZone("CEST", 2*3600)
	created := time.Date(2024, 6, 1, 12, 0, 0, 999, paris)
	doc := decodeOPML(t, writeOPML(t, "Tidings follows", "Ana", created, sampleSites()))

	if doc.Version != "2.0" {
		t.Errorf("version = %q, want 2.0", doc.Version)
	}
	head := []struct{ name, got, want string }{
		{"title", doc.Head.Title, "Tidings follows"},
		{"dateCreated", doc.Head.DateCreated, "Sat, 01 Jun 2024 10:00:00 GMT"},
		{"ownerName", doc.Head.OwnerName, "Ana"},
	}
	for _, h := range head {
		if h.got != h.want {
			t.Errorf("head %s = %q, want %q", h.name, h.got, h.want)
		}
	}
	if ts, err := time.Parse(time.RFC1123, doc.Head.DateCreated); err != nil || !ts.Equal(created.Truncate(time.Second)) {
		t.Errorf("dateCreated %q parses to %v, %v; want %v", doc.Head.DateCreated, ts, err, created)
	}

	feed := func(text, xmlURL, htmlURL string) testOutline {
		return testOutline{Type: "rss", Text: text, Title: text, XMLURL: xmlURL, HTMLURL: htmlURL}
	}
	want := []testOutline{
		{Text: "My Shrine", Outlines: []testOutline{
			feed("My Shrine: friends", "https://tidings.example/feeds/7.atom", "https://shrine.example/"),
			feed("My Shrine: art", "https://tidings.example/feeds/8.atom", "https://shrine.example/art/"),
		}},
		{Text: "https://garden.example/", Outlines: []testOutline{
			feed("https://tidings.example/feeds/9.atom", "https://tidings.example/feeds/9.atom", "https://garden.example/"),
		}},
	}
	if !reflect.DeepEqual(doc.Body.Outlines, want) {
		t.Errorf("outlines:\n%+v\nwant:\n%+v", doc.Body.Outlines, want)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	out := writeOPML(t, "", "", day1, sampleSites())
	got, skipped, err := Parse(bytes.NewReader(out), 1<<20)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, out)
	}
	want := []Outline{
		{"My Shrine: friends", "https://tidings.example/feeds/7.atom", "https://shrine.example/"},
		{"My Shrine: art", "https://tidings.example/feeds/8.atom", "https://shrine.example/art/"},
		{"https://tidings.example/feeds/9.atom", "https://tidings.example/feeds/9.atom", "https://garden.example/"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n%+v\nwant:\n%+v", got, want)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped = %q, want none", skipped)
	}
}

func TestWriteDefaults(t *testing.T) {
	doc := decodeOPML(t, writeOPML(t, " \x00 ", "", time.Time{}, nil))
	if doc.Head.Title != feeds.DefaultAuthor {
		t.Errorf("title = %q, want %q", doc.Head.Title, feeds.DefaultAuthor)
	}
	if doc.Head.DateCreated != "" || doc.Head.OwnerName != "" {
		t.Errorf("head = %+v, want no dateCreated or ownerName", doc.Head)
	}
	if len(doc.Body.Outlines) != 0 {
		t.Errorf("outlines = %+v, want none", doc.Body.Outlines)
	}
	untitled := []Site{{HTMLURL: "ftp://x.example/", Feeds: []Feed{{XMLURL: "https://t.example/f"}}}}
	doc = decodeOPML(t, writeOPML(t, "t", "", day1, untitled))
	site := doc.Body.Outlines[0]
	if site.Text != "Untitled site" || site.Outlines[0].HTMLURL != "" {
		t.Errorf("site = %+v, want text %q and no htmlUrl", site, "Untitled site")
	}
}

func TestWriteDeterministic(t *testing.T) {
	a := writeOPML(t, "t", "o", day1, sampleSites())
	b := writeOPML(t, "t", "o", day1, sampleSites())
	if !bytes.Equal(a, b) {
		t.Errorf("two renders differ:\n%s\n---\n%s", a, b)
	}
}

func TestWriteHostile(t *testing.T) {
	sites := []Site{{
		Title:   "<script>alert(1)</script>\x0b\"Shrine\"\n\tline \xc3\x28",
		HTMLURL: "javascript:alert(document.cookie)",
		Feeds: []Feed{{
			Title:   "]]></outline><evil a='b'/>\x00\x1b",
			XMLURL:  "https://tidings.example/feeds/7.atom?a=1&b=\"2\"",
			HTMLURL: " JavaScript:alert(3)",
		}},
	}}
	out := writeOPML(t, "</title><x>\x01", "&owner;\x7f", day1, sites)
	doc := decodeOPML(t, out)
	site := doc.Body.Outlines[0]
	feed := site.Outlines[0]
	tests := []struct{ name, got, want string }{
		{"head title", doc.Head.Title, "</title><x>"},
		{"owner", doc.Head.OwnerName, "&owner;\x7f"},
		{"site text", site.Text, "<script>alert(1)</script>\"Shrine\" line \uFFFD("},
		{"feed text", feed.Text, "]]></outline><evil a='b'/>"},
		{"xmlUrl", feed.XMLURL, "https://tidings.example/feeds/7.atom?a=1&b=\"2\""},
		{"htmlUrl", feed.HTMLURL, ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	for _, bad := range []string{"<script", "<evil", "<x>", "\x00", "\x01", "\x0b", "\x1b", "javascript"} {
		if bytes.Contains(bytes.ToLower(out), []byte(bad)) {
			t.Errorf("raw output holds %q:\n%s", bad, out)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	for _, raw := range []string{"", "javascript:alert(1)", "/feeds/7.atom", "ftp://t.example/f"} {
		var buf bytes.Buffer
		sites := []Site{{Title: "s", Feeds: []Feed{{Title: "f", XMLURL: raw}}}}
		if err := Write(&buf, "t", "", day1, sites); err == nil {
			t.Errorf("xmlUrl %q: Write succeeded:\n%s", raw, buf.Bytes())
		}
		if buf.Len() != 0 {
			t.Errorf("xmlUrl %q: wrote %d bytes despite the error", raw, buf.Len())
		}
	}
	if err := Write(failingWriter{}, "t", "", day1, sampleSites()); !errors.Is(err, errWrite) {
		t.Errorf("err = %v, want %v", err, errWrite)
	}
}

// readerExport is OPML 1.0 as feed readers export it: folders holding
// subscriptions, attributes in the readers' own spellings.
const readerExport = `<?xml version="1.0" encoding="UTF-8"?>
<!-- exported by a feed reader -->
<opml version="1.0">
  <head>
    <title>Subscriptions</title>
    <outline text="not a subscription" xmlUrl="https://head.example/feed"/>
  </head>
  <body>
    <outline text="Friends" title="Friends">
      <outline type="rss" text="Shrine" title="Ana's Shrine" xmlUrl="https://shrine.example/feed.xml" htmlUrl="https://shrine.example/"/>
      <outline text="Art">
        <outline type="rss" text="Garden" xmlUrl=" https://garden.example/atom " htmlUrl=""/>
      </outline>
    </outline>
    <outline text="Zine" htmlUrl="http://zine.example/"/>
  </body>
</opml>`

func inBody(body string) string {
	return `<opml version="2.0"><head/><body>` + body + `</body></opml>`
}

func nested(levels int) string {
	return strings.Repeat(`<outline text="f">`, levels-1) +
		`<outline text="deep" xmlUrl="https://deep.example/feed"/>` +
		strings.Repeat(`</outline>`, levels-1)
}

func manyOutlines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `<outline xmlUrl="https://s.example/%d"/>`, i)
	}
	return inBody(b.String())
}

func utf16LE(s string) string {
	var b strings.Builder
	b.WriteString("\xFF\xFE")
	for _, u := range utf16.Encode([]rune(s)) {
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	return b.String()
}

const entityBomb = `<?xml version="1.0"?>
<!DOCTYPE opml [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol9 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<opml version="2.0"><head/><body><outline text="&lol9;" xmlUrl="https://a.example/"/></body></opml>`

func TestParse(t *testing.T) {
	one := []Outline{{"A", "https://a.example/feed", ""}}
	tests := []struct {
		name        string
		in          string
		limit       int64 // 1 MiB when 0
		want        []Outline
		wantSkipped []string
		wantErr     string
	}{
		{name: "reader export with folders", in: readerExport, want: []Outline{
			{"Ana's Shrine", "https://shrine.example/feed.xml", "https://shrine.example/"},
			{"Garden", "https://garden.example/atom", ""},
			{"Zine", "", "http://zine.example/"},
		}},
		{name: "attribute case variants", in: inBody(`
			<outline text="A" xmlurl="https://a.example/feed" htmlurl="https://a.example/"/>
			<outline TEXT="B" XMLURL="https://b.example/feed" HTMLURL="https://b.example/"/>
			<outline Title="C" xmlURL="https://c.example/feed" htmlURL="https://c.example/"/>
			<outline text="D" xmlUrl="" xmlurl="https://d.example/feed"/>`), want: []Outline{
			{"A", "https://a.example/feed", "https://a.example/"},
			{"B", "https://b.example/feed", "https://b.example/"},
			{"C", "https://c.example/feed", "https://c.example/"},
			{"D", "https://d.example/feed", ""},
		}},
		{name: "title cleaned", in: inBody(`<outline text="  two&#10; lines&#9;here " xmlUrl="https://a.example/"/>`),
			want: []Outline{{"two lines here", "https://a.example/", ""}}},
		{name: "html entity", in: inBody(`<outline text="Caf&eacute;" xmlUrl="https://a.example/"/>`),
			want: []Outline{{"Café", "https://a.example/", ""}}},
		{name: "namespaced root and prefixed attributes", in: `<opml xmlns="urn:x" xmlns:p="urn:p"><body>` +
			`<outline text="A" p:xmlUrl="https://p.example/" xmlUrl="https://a.example/feed"/></body></opml>`, want: one},
		{name: "utf-8 byte-order mark", in: "\xEF\xBB\xBF" + inBody(`<outline text="A" xmlUrl="https://a.example/feed"/>`), want: one},
		{name: "utf-16 byte-order mark", in: utf16LE(`<?xml version="1.0" encoding="UTF-16"?>` +
			inBody(`<outline text="Zoë" xmlUrl="https://a.example/feed"/>`)),
			want: []Outline{{"Zoë", "https://a.example/feed", ""}}},
		{name: "latin-1", in: `<?xml version="1.0" encoding="ISO-8859-1"?>` +
			inBody("<outline text=\"Zo\xEB\" xmlUrl=\"https://a.example/feed\"/>"),
			want: []Outline{{"Zoë", "https://a.example/feed", ""}}},
		{name: "unknown charset", in: `<?xml version="1.0" encoding="x-klingon"?>` + inBody(""),
			wantErr: `opml: the file's character encoding "x-klingon" is not supported`},
		{name: "duplicates merged", in: inBody(`
			<outline xmlUrl="https://a.example/feed"/>
			<outline text="A" xmlUrl="https://A.example/feed" htmlUrl="https://a.example/"/>
			<outline text="B" htmlUrl="https://b.example"/>
			<outline text="B again" htmlUrl="HTTPS://b.example/"/>
			<outline text="A elsewhere" xmlUrl="https://a.example/feed" htmlUrl="https://elsewhere.example/"/>`),
			want: []Outline{
				{"A", "https://a.example/feed", "https://a.example/"},
				{"B", "", "https://b.example"},
			}},
		{name: "bad addresses skipped with reasons", in: inBody(`
			<outline text="Foo" xmlUrl="ftp://x"/>
			<outline text="Rel" xmlUrl="/feed.xml" htmlUrl="https://rel.example/"/>
			<outline xmlUrl="javascript:alert(1)"/>
			<outline text="Ok" xmlUrl="https://ok.example/feed"/>`),
			want: []Outline{
				{"Rel", "", "https://rel.example/"},
				{"Ok", "https://ok.example/feed", ""},
			},
			wantSkipped: []string{
				`outline "Foo": "ftp://x" is not an http or https address`,
				`outline "Rel": "/feed.xml" is not an http or https address`,
				`outline 3: "javascript:alert(1)" is not an http or https address`,
			}},
		{name: "all addresses bad", in: inBody(`<outline text="Foo" xmlUrl="ftp://x"/>`),
			wantSkipped: []string{`outline "Foo": "ftp://x" is not an http or https address`},
			wantErr:     "opml: none of the file's outlines has an http or https address"},
		{name: "depth at the limit", in: inBody(nested(MaxDepth)),
			want: []Outline{{"deep", "https://deep.example/feed", ""}}},
		{name: "too deep", in: inBody(nested(MaxDepth + 1)),
			wantErr: "opml: the file nests elements more than 50 levels deep"},
		{name: "outlines at the limit", in: manyOutlines(MaxOutlines)},
		{name: "too many outlines", in: manyOutlines(MaxOutlines + 1),
			wantErr: "opml: the file has more than 5000 outlines"},
		{name: "too big", in: manyOutlines(100), limit: 1000,
			wantErr: "opml: the file is too large (the limit is 1000 bytes)"},
		{name: "too big in MiB", in: readerExport + strings.Repeat(" ", 1<<20),
			wantErr: "opml: the file is too large (the limit is 1 MiB)"},
		{name: "no outlines with addresses", in: inBody(`<outline text="folder"><outline text="x"/></outline>`),
			wantErr: "opml: the file has no outlines with feed or site addresses"},
		{name: "empty body", in: `<opml version="1.0"><head/><body/></opml>`,
			wantErr: "opml: the file has no outlines with feed or site addresses"},
		{name: "missing body", in: `<opml version="1.0"><head><title>x</title></head></opml>`,
			wantErr: "opml: the file has no <body> element"},
		{name: "outlines outside body", in: `<opml version="1.0"><outline xmlUrl="https://a.example/"/></opml>`,
			wantErr: "opml: the file has no <body> element"},
		{name: "wrong root", in: `<?xml version="1.0"?><rss version="2.0"><channel/></rss>`,
			wantErr: "opml: the file is not OPML: the root element is <rss>"},
		{name: "html page", in: "<!DOCTYPE html>\n<html><body>hi</body></html>",
			wantErr: "opml: the file is not OPML: the root element is <html>"},
		{name: "not xml", in: `{"feeds": ["https://a.example/"]}`,
			wantErr: "opml: the file is not XML: it starts with text, not with <opml>"},
		{name: "comment after root", in: inBody(`<outline xmlUrl="https://a.example/feed" text="A"/>`) + "\n<!-- end -->\n",
			want: one},
		{name: "second root", in: inBody(`<outline xmlUrl="https://a.example/feed"/>`) + "<opml/>",
			wantErr: "opml: the file is not well-formed XML: it goes on after </opml>"},
		{name: "only a declaration", in: `<?xml version="1.0"?>`,
			wantErr: "opml: the file is not OPML: it has no <opml> element"},
		{name: "empty", in: "", wantErr: "opml: the file is empty"},
		{name: "blank", in: " \n\t ", wantErr: "opml: the file is empty"},
		{name: "truncated", in: "<opml>\n<body>\n<outline text=\"a\"", wantErr: "opml: the file is not well-formed XML (line 3): unexpected EOF"},
		{name: "mismatched tags", in: "<opml>\n<body>\n</head></opml>",
			wantErr: "opml: the file is not well-formed XML (line 3): element <body> closed by </head>"},
		{name: "undefined entity", in: inBody(`<outline text="&nope;" xmlUrl="https://a.example/"/>`),
			wantErr: "opml: the file is not well-formed XML (line 1): invalid character entity &nope;"},
		{name: "entity bomb", in: entityBomb,
			wantErr: "opml: the file declares XML entities, which are not accepted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := tt.limit
			if limit == 0 {
				limit = 1 << 20
			}
			got, skipped, err := Parse(strings.NewReader(tt.in), limit)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if got != nil {
					t.Errorf("outlines = %+v despite the error", got)
				}
			} else if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outlines:\n%+v\nwant:\n%+v", got, tt.want)
			}
			if !reflect.DeepEqual(skipped, tt.wantSkipped) {
				t.Errorf("skipped:\n%q\nwant:\n%q", skipped, tt.wantSkipped)
			}
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	doc := inBody(`<outline text="A" xmlUrl="https://a.example/feed"/>`)
	size := int64(len(doc))
	if _, _, err := Parse(strings.NewReader(doc), size); err != nil {
		t.Errorf("a file of exactly the limit: %v", err)
	}
	_, _, err := Parse(strings.NewReader(doc+" "), size)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file one byte over the limit: err = %v, want %v", err, ErrTooLarge)
	}
	// The reader must not be drained past the limit.
	r := strings.NewReader(doc + strings.Repeat(" ", 1<<20))
	if _, _, err := Parse(r, size); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want %v", err, ErrTooLarge)
	}
	if read := r.Size() - int64(r.Len()); read > size+1 {
		t.Errorf("read %d bytes, want at most %d", read, size+1)
	}
}

func TestParseEntityBombIsCheap(t *testing.T) {
	// Without the declarations, the references are simply undefined.
	bomb := strings.Replace(entityBomb, "<!ENTITY", "<!NOTENTITY", -1)
	for _, in := range []string{entityBomb, bomb} {
		start := time.Now()
		_, _, err := Parse(strings.NewReader(in), 1<<20)
		if err == nil {
			t.Errorf("Parse succeeded on\n%s", in)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Parse took %v", d)
		}
	}
}

type errAfterReader struct {
	r   io.Reader
	err error
}

func (e *errAfterReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		return n, e.err
	}
	return n, err
}

func TestParseReadError(t *testing.T) {
	errRead := errors.New("connection reset")
	r := &errAfterReader{r: strings.NewReader(`<opml><body><outline xmlUrl="https://a.example/"/>`), err: errRead}
	if _, _, err := Parse(r, 1<<20); !errors.Is(err, errRead) {
		t.Errorf("err = %v, want %v", err, errRead)
	}
}

func TestParseBadLimit(t *testing.T) {
	for _, limit := range []int64{0, -1} {
		if _, _, err := Parse(strings.NewReader(readerExport), limit); err == nil {
			t.Errorf("Parse with limit %d succeeded", limit)
		}
	}
}

func TestParseLongSkipReason(t *testing.T) {
	long := "ftp://x.example/" + strings.Repeat("é", 500)
	in := inBody(`<outline text="` + strings.Repeat("t", 500) + `" xmlUrl="` + long + `" htmlUrl="https://a.example/"/>`)
	_, skipped, err := Parse(strings.NewReader(in), 1<<20)
	if err != nil || len(skipped) != 1 {
		t.Fatalf("Parse: skipped %q, err %v", skipped, err)
	}
	if n := utf8.RuneCountInString(skipped[0]); n > 250 {
		t.Errorf("skip reason is %d characters long: %q", n, skipped[0])
	}
}

func FuzzParseOPML(f *testing.F) {
	var buf bytes.Buffer
	if err := Write(&buf, "t", "o", day1, sampleSites()); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		buf.String(), readerExport, entityBomb, manyOutlines(3), inBody(nested(5)),
		utf16LE(inBody(`<outline text="a" xmlUrl="https://a.example/"/>`)),
		inBody(`<outline text="Foo" xmlUrl="ftp://x" htmlUrl="HTTPS://A.example"/>`),
		"", "<opml>", "<rss/>", "\xEF\xBB\xBF<opml><body/></opml>",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		outlines, _, err := Parse(bytes.NewReader(in), 1<<16)
		if err != nil {
			if outlines != nil {
				t.Errorf("outlines %+v despite error %v", outlines, err)
			}
			return
		}
		if len(outlines) == 0 || len(outlines) > MaxOutlines {
			t.Errorf("%d outlines without an error", len(outlines))
		}
		seen := make(map[string]bool)
		for _, o := range outlines {
			if o.XMLURL == "" && o.HTMLURL == "" {
				t.Errorf("outline %+v has no address", o)
			}
			for _, u := range []string{o.XMLURL, o.HTMLURL} {
				if u != "" && feeds.SafeURL(u) != u {
					t.Errorf("address %q is not a clean http or https URL", u)
				}
			}
			if o.Title != cleanLine(o.Title) {
				t.Errorf("title %q is not clean", o.Title)
			}
			key := o.XMLURL + " " + o.HTMLURL
			if o.XMLURL != "" {
				key = o.XMLURL
			}
			if seen[key] {
				t.Errorf("duplicate outline %+v", o)
			}
			seen[key] = true
		}
	})
}

// wellFormed decodes the whole document with encoding/xml.
func wellFormed(t *testing.T, out []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("encoding/xml: %v\n%s", err, out)
		}
	}
}

var (
	day1 = time.Date(2024, 5, 1, 9, 30, 0, 0, time.UTC)
	day2 = time.Date(2024, 5, 2, 18, 5, 7, 0, time.UTC)
)

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

var errWrite = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// TestLongTitlesAreShortened: an outline's title is kept to MaxTitle
// characters, cut with an ellipsis; a title at the limit is whole.
func TestLongTitlesAreShortened(t *testing.T) {
	at := strings.Repeat("é", MaxTitle)
	over := strings.Repeat("a", MaxTitle+50)
	doc := `<opml version="2.0"><body>
<outline text="` + at + `" xmlUrl="https://a.example/feed"/>
<outline title="` + over + `" xmlUrl="https://b.example/feed"/>
</body></opml>`
	got, _, err := Parse(strings.NewReader(doc), 1<<20)
	if err != nil || len(got) != 2 {
		t.Fatalf("Parse: %+v, %v", got, err)
	}
	if got[0].Title != at {
		t.Errorf("a title of %d characters became %q", MaxTitle, got[0].Title)
	}
	if want := strings.Repeat("a", MaxTitle-1) + "…"; got[1].Title != want {
		t.Errorf("a title of %d characters became %d characters: %q", MaxTitle+50, utf8.RuneCountInString(got[1].Title), got[1].Title)
	}
}
