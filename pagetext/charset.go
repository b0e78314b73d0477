package pagetext

import (
	"bytes"
	"io"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// pageEncoding picks a page's encoding the way browsers do: a BOM, then
// the Content-Type charset, then a <meta> declaration in the first 1,024
// bytes. A page that declares nothing is read as UTF-8 when it is valid
// UTF-8 and as windows-1252 (the HTML standard's default for most locales)
// otherwise; guessed reports that last case, and a page that is mostly
// UTF-8 with stray invalid bytes, so callers can warn rather than trust it.
func pageEncoding(body []byte, contentType string) (enc encoding.Encoding, name string, guessed bool) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if certain {
		return enc, name, false
	}
	undeclared := (name == "windows-1252" || name == "utf-8") && !declaresCharset(body)
	if !undeclared {
		return enc, name, false
	}
	if utf8.Valid(body) {
		return encoding.Nop, "utf-8", false
	}
	return enc, name, true
}

// declaresCharset reports whether the prescan window mentions a charset at
// all. DetermineEncoding answers windows-1252 both for a page declaring it
// and for a page declaring nothing; only the latter is a guess.
func declaresCharset(body []byte) bool {
	head := body[:min(len(body), 1024)]
	return bytes.Contains(bytes.ToLower(head), []byte("charset"))
}

// decodedReader returns the body as UTF-8, without a byte order mark.
// UTF-8 input is read as is: the HTML tokenizer and cleanWord already
// turn invalid bytes into U+FFFD.
func decodedReader(body []byte, enc encoding.Encoding, name string) io.Reader {
	switch {
	case name == "utf-8" && bytes.HasPrefix(body, []byte("\xef\xbb\xbf")):
		body = body[3:]
	case (name == "utf-16le" || name == "utf-16be") && len(body) >= 2 &&
		(body[0] == 0xff && body[1] == 0xfe || body[0] == 0xfe && body[1] == 0xff):
		body = body[2:]
	}
	if name == "utf-8" || enc == encoding.Nop {
		return bytes.NewReader(body)
	}
	return enc.NewDecoder().Reader(bytes.NewReader(body))
}
