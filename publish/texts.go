package publish

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/net/html"

	"tidings/pagetext"
)

// textsName is the file, in a collection's folder, of its pages' texts as
// the last run read them: what the change feed compares a changed page
// with. Its name begins with a dot because readers have no use for it;
// static hosts may leave it out, and without it an updated page's entry
// says only that the page changed.
const textsName = ".pagetexts.json.gz"

// maxStateText bounds the text kept of one collection's pages: past it,
// pages are kept without their text, and their next change is told
// without the words.
const maxStateText = 32 << 20

// maxNoteBytes bounds a change note, from a page or from --note.
const maxNoteBytes = 500

// pageText is what the change feed keeps of one page.
type pageText struct {
	// Hash is the page's hash when its text was read.
	Hash  string `json:"hash"`
	Title string `json:"title,omitempty"`
	// Text is nil when it is not known: not kept, or not a page with text.
	Text *string `json:"text,omitempty"`
	// Note is the change note the page carried in its meta element.
	Note string `json:"note,omitempty"`
}

// texts are a collection's pages by URL.
type texts map[string]pageText

// readTexts reads back the texts the last run kept. A missing or
// unreadable file is no error: the feed then says less, and says so in a
// warning.
func readTexts(dir string, l layout) (texts, string) {
	rel := l.file(textsName)
	if err := noLinks(dir, rel); err != nil {
		return texts{}, err.Error()
	}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return texts{}, ""
	}
	if err != nil {
		return texts{}, err.Error()
	}
	defer f.Close()
	zr, err := gzip.NewReader(io.LimitReader(f, maxDocBytes))
	if err != nil {
		return texts{}, fmt.Sprintf("%s cannot be read (%v); the changes of this run are told without the text they replaced", rel, err)
	}
	var out texts
	// Twice the text kept, for JSON's escapes, and the titles and hashes.
	dec := json.NewDecoder(io.LimitReader(zr, 2*maxStateText+maxDocBytes))
	if err := dec.Decode(&out); err != nil {
		return texts{}, fmt.Sprintf("%s cannot be read (%v); the changes of this run are told without the text they replaced", rel, err)
	}
	if out == nil {
		out = texts{}
	}
	return out, ""
}

// textsFile is the texts as written: JSON (its keys sorted) compressed
// with no name or time in the header, so that the same texts give the
// same bytes.
func textsFile(t texts) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err := json.NewEncoder(zw).Encode(t); err != nil {
		// Strings and maps of strings always encode.
		panic("publish: encode texts: " + err.Error())
	}
	_ = zw.Close()
	return buf.Bytes()
}

// readPageText reads and extracts one page of the folder as it is now.
func readPageText(dir string, pg *page) pageText {
	pt := pageText{Hash: pg.hash}
	data, err := readCapped(filepath.Join(dir, filepath.FromSlash(pg.rel)))
	if err != nil {
		return pt
	}
	return extractText(data, pg.rel, pg.url, pg.hash)
}

// extractText reads a page's title, text and change note from its bytes.
func extractText(data []byte, rel, pageURL, hash string) pageText {
	pt := pageText{Hash: hash}
	s, err := pagetext.Extract(data, contentTypeOf(rel), pageURL)
	if err != nil {
		return pt
	}
	pt.Title = s.Title
	if s.HasText() {
		text := s.Text
		pt.Text = &text
	}
	if strings.HasPrefix(s.MediaType, "text/html") || s.MediaType == "application/xhtml+xml" {
		pt.Note = metaNote(data)
	}
	return pt
}

// contentTypeOf is the media type a static host serves rel as.
func contentTypeOf(rel string) string {
	if ct := mime.TypeByExtension(strings.ToLower(path.Ext(rel))); ct != "" {
		return ct
	}
	return "application/octet-stream"
}

// metaNote is the content of the page's <meta name="change-note">, read
// from its head only.
func metaNote(data []byte) string {
	z := html.NewTokenizer(bytes.NewReader(data))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "body":
				return ""
			case "meta":
				var isNote bool
				var content string
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					switch string(k) {
					case "name":
						isNote = strings.EqualFold(strings.TrimSpace(string(v)), "change-note")
					case "content":
						content = string(v)
					}
				}
				if isNote {
					return cleanNote(content)
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "head" {
				return ""
			}
		}
	}
}

// cleanNote makes a note one line of text XML can hold, at most
// maxNoteBytes long.
func cleanNote(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < 0x20 || r == 0x7f || r == 0xfffe || r == 0xffff || r >= 0xd800 && r <= 0xdfff:
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	s = strings.Join(strings.Fields(s), " ")
	return pagetext.Clip(s, maxNoteBytes)
}
