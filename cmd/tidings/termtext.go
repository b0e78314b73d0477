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
// UTF-8 (a lone 0x9b is CSI to an 8-bit terminal). An escape sequence is
// dropped whole, not just its ESC: "\x1b[31m" left as "[31m" and an OSC's
// payload left as text would still show the attacker's words.

// escState is where termWriter is inside an escape sequence.
type escState int

const (
	ground   escState = iota // plain text
	escaped                  // after ESC
	escInter                 // ESC and intermediate bytes, before the final one
	csi                      // ESC [ (or 8-bit CSI): parameters until the final byte
	str                      // OSC, DCS, SOS, PM, APC: a string until BEL or ST
	strEsc                   // an ESC inside such a string: ST if "\" follows
)

// termWriter filters what is written to w; a rune split between two writes
// is held back until its end comes, and an escape sequence split between
// two writes is still dropped whole.
type termWriter struct {
	w     io.Writer
	carry []byte
	state escState
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
		if t.keep(r) {
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, buf[:size]...)
			}
		}
		buf = buf[size:]
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// keep advances the escape state by r and tells whether r is printed.
func (t *termWriter) keep(r rune) bool {
	switch t.state {
	case escaped:
		switch {
		case r == '[':
			t.state = csi
		case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
			t.state = str
		case r >= 0x20 && r <= 0x2f:
			t.state = escInter
		case r >= 0x30 && r <= 0x7e:
			t.state = ground
		case r == 0x1b:
		default:
			t.state = ground
			return t.keep(r)
		}
		return false
	case escInter:
		switch {
		case r >= 0x20 && r <= 0x2f:
		case r >= 0x30 && r <= 0x7e:
			t.state = ground
		default:
			t.state = ground
			return t.keep(r)
		}
		return false
	case csi:
		switch {
		case r >= 0x20 && r <= 0x3f:
		case r >= 0x40 && r <= 0x7e:
			t.state = ground
		default:
			t.state = ground
			return t.keep(r)
		}
		return false
	case str:
		// A newline ends the string too: a terminal would swallow
		// everything up to a BEL that never comes, but the CLI's own lines
		// after one site's text must still be seen.
		switch r {
		case 0x07, 0x9c:
			t.state = ground
		case 0x1b:
			t.state = strEsc
		case '\n':
			t.state = ground
			return true
		}
		return false
	case strEsc:
		if r == '\\' {
			t.state = ground
			return false
		}
		t.state = escaped
		return t.keep(r)
	}
	switch r {
	case 0x1b:
		t.state = escaped
		return false
	case 0x9b:
		t.state = csi
		return false
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f:
		t.state = str
		return false
	}
	return printable(r)
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
