package hints

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// step is one token as a reader returned it, and the line after it.
type step struct {
	tok  xml.Token
	line int
}

// allTokens reads tokens until an error (io.EOF at the end), at most
// 100,000.
func allTokens(next func() (xml.Token, error), line func() int) ([]step, string) {
	var steps []step
	for range 100_000 {
		tok, err := next()
		if err != nil {
			return steps, err.Error()
		}
		steps = append(steps, step{xml.CopyToken(tok), line()})
	}
	return steps, "more than 100,000 tokens"
}

// chunked hands its data over at most n bytes a read, so that tokens
// straddle the reads.
type chunked struct {
	data []byte
	n    int
	err  error // after the data; io.EOF when nil
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// testCharset stands for rsync's: us-ascii is read as it is, anything
// else refused.
func testCharset(label string, in io.Reader) (io.Reader, error) {
	if strings.EqualFold(label, "us-ascii") {
		return in, nil
	}
	return nil, fmt.Errorf("no charset %s", label)
}

// sameAsEncodingXML reads doc with XMLTokens, fed n bytes a read, and
// with encoding/xml's RawToken (behind ClipXML when limit is not 0), and
// reports where they differ.
func sameAsEncodingXML(doc []byte, n, limit int, readErr error) error {
	var in io.Reader = &chunked{data: doc, n: 4096, err: readErr}
	if limit > 0 {
		in = ClipXML(in, limit)
	}
	want := xml.NewDecoder(in)
	want.CharsetReader = testCharset
	wantSteps, wantErr := allTokens(want.RawToken, func() int { l, _ := want.InputPos(); return l })
	got := NewXMLTokens(&chunked{data: doc, n: max(n, 1), err: readErr}, limit, testCharset)
	gotSteps, gotErr := allTokens(got.RawToken, got.Line)
	for i := range min(len(gotSteps), len(wantSteps)) {
		if !reflect.DeepEqual(gotSteps[i], wantSteps[i]) {
			return fmt.Errorf("token %d: got %#v, encoding/xml %#v", i, gotSteps[i], wantSteps[i])
		}
	}
	if len(gotSteps) != len(wantSteps) || gotErr != wantErr {
		return fmt.Errorf("%d tokens then %q, encoding/xml %d then %q", len(gotSteps), gotErr, len(wantSteps), wantErr)
	}
	return nil
}

const plainChangeList = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="https://example.org/capabilitylist.xml"/>
  <rs:md capability="changelist" from="2024-01-01T00:00:00Z"/>
  <url>
    <loc>https://example.org/a?x=1&amp;y=2</loc>
    <rs:md change="updated" datetime="2024-01-02T10:00:00Z"/>
  </url>
  <url><loc>https://example.org/b</loc><rs:md change='created' datetime='2024-01-03'></rs:md></url>
</urlset>
`

// Documents on both sides of every way off the fast path: each must read
// as encoding/xml reads it.
var xmlTokenCases = []string{
	plainChangeList,
	"",
	"   \n  ",
	"<a/>",
	"<a>text &lt;&gt;&amp;&apos;&quot; more</a>",
	"<a>]]></a>",
	"<a>]] ></a>",
	"<a b=\"x]]>y\"/>",
	"<a>x &#38; y</a>",
	"<a>x &nbsp; y</a>",
	"<a>x &amp y</a>",
	"<a>\r\nline\r</a>",
	"<a>caf\xc3\xa9</a>",
	"<a>\xff</a>",
	"<a>\x01</a>",
	"<a b=\"1\"c='2'/>",
	"<a b=1/>",
	"<a b/>",
	"<a b=\"<\"/>",
	"<a b=\"&unknown;\"/>",
	"<a b=\"x&amp;y\" c=\"\ttab\nline\"/>",
	"<a:b:c/>",
	"<a:/>",
	"<:a/>",
	"<1a/>",
	"<a:-b/>",
	"< a/>",
	"<a/ >",
	"<a></a >",
	"<a></a b>",
	"</>",
	"<a><!-- a comment --></a>",
	"<a><!-- bad -- comment --></a>",
	"<a><![CDATA[<x>]]></a>",
	"<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>",
	"<?xml version=\"1.0\"?><a/>",
	"<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\" ?>\n<a/>",
	"<?xml version='1.0' encoding='UTF-8'?><a/>",
	"<?xml version=\"1.1\"?><a/>",
	"<?xml version=\"1.0\" encoding=\"us-ascii\"?><a/>",
	"<?xml version=\"1.0\" encoding=\"latin1\"?><a/>",
	"<?xml  version=\"1.0\"?><a/>",
	"\n<?xml version=\"1.0\"?><a/>",
	"<a/><?xml version=\"1.0\" encoding=\"latin1\"?>",
	"<?pi data?><a/>",
	"<a",
	"<a b=\"1",
	"<a>text",
	"<a>\n\n<b>\n</c>",
	"<a>\n</a>\n<!-- served 1 -->\n",
	"<a>\n<b\n x\n =\n 'y'\n >\n</b\n>\n</a>",
	"<a b=\"0123456789abcdef\">0123456789abcdef</a>",
	"<a b=\"0123&amp;\">0123456789&amp;</a>",
	"<a>0123456789a&amp;bcdef</a>",
	"<a b=\"12345\">12345</a>",
	"<a b=\"123456\">123456</a>",
	"<a b=\"123456789012\">1234567890123</a>",
}

// TestXMLTokensAsEncodingXML: each case, fed 1, 2, 3, 7 and 4096 bytes a
// read, and with a read error after it, gives encoding/xml's tokens,
// lines and error, read whole or behind ClipXML with a limit of 5 or 12
// bytes a value (which cuts some of them).
func TestXMLTokensAsEncodingXML(t *testing.T) {
	for _, doc := range xmlTokenCases {
		for _, n := range []int{1, 2, 3, 7, 4096} {
			for _, limit := range []int{0, 5, 12} {
				for _, readErr := range []error{nil, errors.New("connection reset")} {
					if err := sameAsEncodingXML([]byte(doc), n, limit, readErr); err != nil {
						t.Errorf("%q, %d bytes a read, limit %d, error %v: %v", doc, n, limit, readErr, err)
					}
				}
			}
		}
	}
}

// TestXMLTokensTestdata: the parsers' own documents read the same.
func TestXMLTokensTestdata(t *testing.T) {
	files, _ := filepath.Glob("../*/testdata/*.xml")
	if len(files) < 5 {
		t.Fatalf("found %d documents to read", len(files))
	}
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{5, 4096} {
			for _, limit := range []int{0, 30} {
				if err := sameAsEncodingXML(doc, n, limit, nil); err != nil {
					t.Errorf("%s, %d bytes a read, limit %d: %v", f, n, limit, err)
				}
			}
		}
	}
}

// TestXMLTokensStayFast: a change list as generators write it, entities
// in its URLs and a comment after it, is read without encoding/xml until
// the comment; the speed is the fast path's.
func TestXMLTokensStayFast(t *testing.T) {
	doc := plainChangeList + "<!-- served 3 -->\n"
	tk := NewXMLTokens(strings.NewReader(doc), 4096, testCharset)
	for {
		tok, err := tk.RawToken()
		if err != nil {
			t.Fatalf("before the comment: %v", err)
		}
		if e, ok := tok.(xml.EndElement); ok && e.Name.Local == "urlset" {
			break
		}
	}
	if tk.slow != nil {
		t.Fatalf("handed to encoding/xml before the comment, at line %d", tk.Line())
	}
	if _, err := tk.RawToken(); err != nil {
		t.Fatal(err)
	}
	if tok, err := tk.RawToken(); err != nil || tk.slow == nil {
		t.Fatalf("the comment: %v %v, handed over %v", tok, err, tk.slow != nil)
	}
}

func FuzzXMLTokensAsEncodingXML(f *testing.F) {
	for _, doc := range xmlTokenCases {
		f.Add([]byte(doc), uint8(3), uint8(0))
		f.Add([]byte(doc), uint8(7), uint8(6))
	}
	f.Fuzz(func(t *testing.T, doc []byte, n, limit uint8) {
		if err := sameAsEncodingXML(doc, int(n), int(limit), nil); err != nil {
			t.Fatal(err)
		}
	})
}
