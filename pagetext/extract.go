package pagetext

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// DefaultMaxText is the text kept per page when Options.MaxText is zero.
const DefaultMaxText = 256 << 10

// DefaultMaxBody is the largest body Extract reads when Options.MaxBody is
// zero. The client caps bodies before this; the cap here keeps the package
// safe on its own.
const DefaultMaxBody = 16 << 20

// treeLimit is the body size above which a page is not parsed into a tree
// for readability but streamed through the tokenizer: memory then stays
// proportional to the text kept, and pages that big are data, not articles.
const treeLimit = 1 << 20

// ErrTooLarge means the body is over Options.MaxBody.
var ErrTooLarge = errors.New("pagetext: page too large")

// How a snapshot's text was found.
const (
	MethodArticle = "article" // readability's main content
	MethodBody    = "body"    // the whole <body>, when readability found too little
	MethodPlain   = "plain"   // a text/plain document
)

// Snapshot is what tidings keeps of one page: enough to tell whether it
// changed and to say how.
type Snapshot struct {
	// MediaType is the body's media type, lower-cased, without parameters.
	MediaType string
	// Size is the body's length in bytes, as received.
	Size int
	// ContentHash is the hex SHA-256 of the body as received.
	ContentHash string
	// Charset is the encoding the text was decoded from; empty without text.
	Charset string
	// CharsetGuessed reports that the page declared no encoding and was
	// not valid UTF-8, so it was read as windows-1252: the text may be
	// garbled and callers should say so.
	CharsetGuessed bool
	// Title is the page's <title>, or its first <h1> when it has none.
	Title string
	// Text is the readable text: one heading, paragraph, list item or
	// table row per line, whitespace collapsed, at most MaxText bytes.
	Text string
	// TextHash is the hex SHA-256 of Text; empty when the media type has
	// no text (images, PDFs, audio). Equal hashes with different content
	// hashes mean only markup changed.
	TextHash string
	// Method says how Text was found (MethodArticle, MethodBody,
	// MethodPlain); empty without text.
	Method string
	// Truncated reports that Text was cut at MaxText.
	Truncated bool
	// Unremoved is the text with nothing of Options.Remove left out, when
	// Options.KeepUnremoved asked for it: what a text read before those
	// rules is compared with.
	Unremoved string
}

// HasText reports whether the snapshot's media type carries text, even
// when that text is empty.
func (s *Snapshot) HasText() bool { return s.TextHash != "" }

// Warnings says, in sentences for the site's page, what makes the
// snapshot less than faithful; none when it is.
func (s *Snapshot) Warnings() []string {
	var w []string
	if s.CharsetGuessed {
		w = append(w, "the page declares no character encoding and is not UTF-8, so its text was read as Windows-1252 and may be garbled")
	}
	if s.Truncated {
		w = append(w, "the page's text is longer than tidings keeps, so changes near its end are not seen")
	}
	return w
}

// Options tunes extraction; the zero value uses the defaults.
type Options struct {
	// MaxText caps the text kept, in bytes; zero means DefaultMaxText.
	MaxText int
	// MaxBody refuses bigger bodies with ErrTooLarge; zero means
	// DefaultMaxBody.
	MaxBody int
	// Prefer is the Method of the page's previous snapshot, "" when none:
	// an HTML page is read the same way again unless the other way now
	// fits it clearly better, so that a small edit does not read as the
	// whole text replaced.
	Prefer string
	// WholeBody takes the text of the whole <body>, never readability's
	// article: the same page then always gives the same lines, which a
	// caller comparing pages with their neighbours needs, since
	// readability's pick can change when only the navigation did.
	WholeBody bool
	// Remove are the parts of a page a person asked to ignore: what they
	// match is left out of its text (Noise.Remove), whichever way it is
	// read, the whole body's text or readability's article, which is
	// found after they are taken out. A page over treeLimit is streamed,
	// not parsed into a tree, and keeps them.
	Remove []Selector
	// KeepUnremoved also gives the text as it was before Remove
	// (Snapshot.Unremoved).
	KeepUnremoved bool
}

// Extract snapshots a page with the default options.
func Extract(body []byte, contentType, pageURL string) (*Snapshot, error) {
	return Options{}.Extract(body, contentType, pageURL)
}

// Extract snapshots a page from its body and its Content-Type header. An
// empty Content-Type is sniffed. pageURL is the final URL the body came
// from; it only helps readability judge links. Every body within MaxBody
// gives a snapshot: markup errors and odd encodings are read as browsers
// read them.
func (o Options) Extract(body []byte, contentType, pageURL string) (*Snapshot, error) {
	maxBody := orDefault(o.MaxBody, DefaultMaxBody)
	if len(body) > maxBody {
		return nil, fmt.Errorf("%w: %d bytes, over the %d-byte cap", ErrTooLarge, len(body), maxBody)
	}
	sum := sha256.Sum256(body)
	s := &Snapshot{
		MediaType:   mediaType(body, contentType),
		Size:        len(body),
		ContentHash: hex.EncodeToString(sum[:]),
	}
	maxText := orDefault(o.MaxText, DefaultMaxText)
	switch s.MediaType {
	case "text/html", "application/xhtml+xml":
		extractHTML(s, body, contentType, pageURL, maxText, len(body) > treeLimit || o.WholeBody && len(o.Remove) == 0, o.WholeBody, o.Prefer, o.Remove, o.KeepUnremoved)
	case "text/plain", "text/markdown", "text/x-markdown":
		extractPlain(s, body, contentType, maxText)
	default:
		return s, nil
	}
	s.TextHash = TextHash(s.Text)
	return s, nil
}

// TextHash is a text's Snapshot.TextHash: the hex SHA-256 of its bytes.
func TextHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// mediaType reads the Content-Type, sniffing the body when the header is
// missing or unparsable, as a browser would.
func mediaType(body []byte, contentType string) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return mt
	}
	if before, _, _ := strings.Cut(contentType, ";"); strings.TrimSpace(before) != "" {
		return strings.ToLower(strings.TrimSpace(before))
	}
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	return mt
}

func extractPlain(s *Snapshot, body []byte, contentType string, maxText int) {
	enc, name, guessed := pageEncoding(body, contentType)
	s.Charset, s.CharsetGuessed, s.Method = name, guessed, MethodPlain
	b := newLineBuilder(maxText)
	b.pre = 1 // every newline ends a line, as inside <pre>
	streamText(b, decodedReader(body, enc, name))
	s.Text = b.finish()
	s.Truncated = b.truncated
}
