package main

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Site text (titles, warnings, error messages quoting a server) reaches the
// terminal through the reports. A hostile site could put escape sequences
// in it that retitle the window, rewrite the screen or worse, so the CLI
// writes it through termWriter, which keeps printable text, newlines and
// tabs and drops every other control: C0 and C1 controls, DEL, the bidi
// overrides that make text read other than it is, and bytes that are not
// UTF-8 (a lone 0x9b is CSI to an 8-bit terminal).

// termWriter filters what is written to w; a rune split between two writes
// is held back until its end comes.
type termWriter struct {
	w     io.Writer
	carry []byte
}

func newTermWriter(w io.Writer) *termWriter { return &termWriter{w: w} }

func (t *termWriter) Write(p []byte) (int, error) {
	buf := append(t.carry, p...)
	t.carry = nil
	out := make([]byte, 0, len(buf))
	for len(buf) > 0 {
		if !utf8.FullRune(buf) {
			t.carry = append(t.carry, buf...)
			break
		}
		r, size := utf8.DecodeRune(buf)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else if printable(r) {
			out = append(out, buf[:size]...)
		}
		buf = buf[size:]
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// printable tells whether r may reach a terminal as it is.
func printable(r rune) bool {
	switch {
	case r == '\n', r == '\t':
		return true
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return false
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return false
	}
	return true
}

// termText is s as termWriter would write it.
func termText(s string) string {
	var b strings.Builder
	newTermWriter(&b).Write([]byte(s))
	return b.String()
}
