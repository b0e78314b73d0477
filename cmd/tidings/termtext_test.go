package main

import (
	"strings"
	"testing"
)

func TestTermTextDropsControls(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"My Shrine & Co", "My Shrine & Co"},
		{"over\rwrite", "overwrite"},
		{"raw \x9b byte", "raw \ufffd byte"},
		{"bidi \u202eevil\u202c and \u2066isolate\u2069", "bidi evil and isolate"},
		{"line\n\ttabbed, 日本語 ✓", "line\n\ttabbed, 日本語 ✓"},
		{"DEL \x7f and BEL \x07 alone", "DEL  and BEL  alone"},
		// Escape sequences go whole, parameters and payload included.
		{"red \x1b[31mtext\x1b[0m", "red text"},
		{"\x1b[31mRED\x1b]0;owned\x07 title", "RED title"},
		{"Cats of the Month\x1b]0;pwned\x07 ok", "Cats of the Month ok"},
		{"OSC ended by ST\x1b]2;x\x1b\\ ok", "OSC ended by ST ok"},
		{"hyperlink \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ here", "hyperlink click here"},
		{"clear\x1b[2J\x1b[H\x1b[?25l screen", "clear screen"},
		{"CSI with intermediates \x1b[1 q done", "CSI with intermediates  done"},
		{"8-bit CSI \u009b31m and DEL \x7f", "8-bit CSI  and DEL "},
		{"8-bit OSC \u009d0;t\u009c done", "8-bit OSC  done"},
		{"DCS \x1bPq#0;2;0;0;0\x1b\\ done", "DCS  done"},
		{"charset \x1b(B reset \x1bc done", "charset  reset  done"},
		{"ESC ESC \x1b\x1b[1m bold", "ESC ESC  bold"},
		// An OSC whose BEL never comes ends at the line's end, so the
		// lines after it are still seen; a CSI cut by a newline too.
		{"title\x1b]0;never ended\nnext line", "title\nnext line"},
		{"cut \x1b[31\nline", "cut \nline"},
		// An OSC restarted by another escape drops both.
		{"a\x1b]0;x\x1b[31mb", "ab"},
		{"ESC then text \x1b\u00e9t\u00e9", "ESC then text été"},
	} {
		if got := termText(tt.in); got != tt.want {
			t.Errorf("termText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestTermWriterDropsASplitSequence: an escape sequence cut between two
// writes is still dropped whole.
func TestTermWriterDropsASplitSequence(t *testing.T) {
	var b strings.Builder
	w := newTermWriter(&b)
	for _, part := range []string{"a\x1b", "]0;ti", "tle\x1b", "\\b\x1b[3", "1mc\n"} {
		w.Write([]byte(part))
	}
	if got, want := b.String(), "abc\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// TestTermWriterHoldsASplitRune: a rune cut between two writes is judged
// whole, so neither a good rune nor a C1 control slips through as halves.
func TestTermWriterHoldsASplitRune(t *testing.T) {
	var b strings.Builder
	w := newTermWriter(&b)
	for _, part := range []string{"caf\xc3", "\xa9 ", "\xc2", "\x9b2J", "\xe2\x80", "\xaeend\n"} {
		if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write(%q) = %d, %v", part, n, err)
		}
	}
	if got, want := b.String(), "café end\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// TestSiteTextReachesTheTerminalWithoutControls: a collection titled with
// escape sequences, and a server whose failure quotes them, print clean
// through follow, harvest, feeds and the final error.
func TestSiteTextReachesTheTerminalWithoutControls(t *testing.T) {
	site := newSite(t)
	site.Set("/shrine/about.html", "<html><head><title>Shrine\x1b]0;owned\x07\x1b[2J \u009b1m</title></head></html>")
	env := newEnv(t)
	outputs := []result{tidings(t, env, "follow", site.URL+"/")}
	site.Set("/gallery/changes.xml", "\x1b[31mnot xml\x07")
	outputs = append(outputs,
		tidings(t, env, "harvest", "--all"),
		tidings(t, env, "feeds"),
		tidings(t, env, "follow", "http://127.0.0.1:1/\x1b[2J"))
	for i, r := range outputs {
		for _, out := range []string{r.stdout, r.stderr} {
			if strings.ContainsAny(out, "\x1b\x07\u009b") {
				t.Errorf("output %d carries a control character: %q", i, out)
			}
		}
	}
	if !strings.Contains(outputs[2].stdout, "Shrine") || strings.Contains(outputs[2].stdout, "owned") || strings.Contains(outputs[2].stdout, "[2J") {
		t.Errorf("feeds lost the title's text or kept an escape's payload: %q", outputs[2].stdout)
	}
}
