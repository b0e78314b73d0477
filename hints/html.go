package hints

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// MaxHTMLBytes is how much of an HTML page HTMLHints reads. The hints live
// in <head>, which is near the top of any page worth reading.
const MaxHTMLBytes = 1 << 20

// HTMLHints reads the <head> of an HTML page and returns the href of every
// <link rel="resourcesync"> (resolved against base, or against a preceding
// <base href>) and the text of the <title> with whitespace collapsed. Only
// absolute http and https links are returned, without duplicates, at most
// MaxHintURLs of them. Reading stops at </head> or <body>, and after
// MaxHTMLBytes.
func HTMLHints(r io.Reader, base string) (links []string, title string) {
	data, err := io.ReadAll(io.LimitReader(r, MaxHTMLBytes))
	if err != nil && len(data) == 0 {
		return nil, ""
	}
	z := html.NewTokenizer(htmlReader(data))
	h := headScan{base: base}
	for h.step(z) {
	}
	return h.links.list, h.title
}

// htmlReader decodes a page to UTF-8. Without a Content-Type at hand the
// charset comes from a BOM or <meta>; failing those, bytes that are valid
// UTF-8 are read as UTF-8 rather than the windows-1252 the HTML sniffing
// rules would otherwise pick, since that is what nearly every page is.
func htmlReader(data []byte) io.Reader {
	enc, _, certain := charset.DetermineEncoding(data, "")
	if !certain && validUTF8Prefix(data) {
		return bytes.NewReader(data)
	}
	return enc.NewDecoder().Reader(bytes.NewReader(data))
}

// validUTF8Prefix reports whether data is valid UTF-8, ignoring a rune cut
// in half by the read limit.
func validUTF8Prefix(data []byte) bool {
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				data = data[:i]
			}
			break
		}
	}
	return utf8.Valid(data)
}

// headScan is the state of HTMLHints between tokens.
type headScan struct {
	base     string
	links    urlSet
	title    string
	inTitle  bool
	seenBase bool
	titleBuf strings.Builder
}

// step handles one token and reports whether to keep reading.
func (h *headScan) step(z *html.Tokenizer) bool {
	tt := z.Next()
	switch tt {
	case html.ErrorToken:
		return false
	case html.TextToken:
		if h.inTitle {
			h.titleBuf.Write(z.Text())
		}
	case html.EndTagToken:
		name, _ := z.TagName()
		switch string(name) {
		case "head":
			return false
		case "title":
			h.endTitle()
		}
	case html.StartTagToken, html.SelfClosingTagToken:
		name, hasAttr := z.TagName()
		return h.startTag(z, string(name), hasAttr)
	}
	return true
}

// startTag handles an opening tag and reports whether to keep reading.
func (h *headScan) startTag(z *html.Tokenizer, name string, hasAttr bool) bool {
	switch name {
	case "body":
		return false
	case "title":
		if h.title == "" {
			h.inTitle = true
		}
	case "base":
		if href, ok := Attrs(z, hasAttr)["href"]; ok && !h.seenBase {
			h.seenBase = true
			if u, ok := resolveHTTP(parseBaseURL(h.base), href); ok {
				h.base = u
			}
		}
	case "link":
		a := Attrs(z, hasAttr)
		if HasToken(a["rel"], "resourcesync") && h.links.len() < MaxHintURLs {
			if u, ok := resolveHTTP(parseBaseURL(h.base), a["href"]); ok {
				h.links.add(u)
			}
		}
	}
	return true
}

func (h *headScan) endTitle() {
	if h.inTitle {
		h.title = strings.Join(strings.Fields(h.titleBuf.String()), " ")
		h.inTitle = false
	}
}

// Attrs collects the current tag's attributes (more: the tokenizer said
// the tag has some); the first of a repeated name wins, as in browsers.
func Attrs(z *html.Tokenizer, more bool) map[string]string {
	m := map[string]string{}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if _, seen := m[string(k)]; !seen {
			m[string(k)] = string(v)
		}
	}
	return m
}

// HasToken reports whether the space-separated list holds tok, ignoring
// case, as rel attributes are read.
func HasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}
