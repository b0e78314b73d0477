package main

import (
	"strings"
	"testing"
)

func TestTermTextDropsControls(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"My Shrine & Co", "My Shrine & Co"},
		{"Cats of the Month\x1b]0;pwned\x07 ok", "Cats of the Month]0;pwned ok"},
		{"red \x1b[31mtext\x1b[0m", "red [31mtext[0m"},
		{"8-bit CSI \u009b31m and DEL \x7f", "8-bit CSI 31m and DEL "},
		{"raw \x9b byte", "raw \ufffd byte"},
		{"over\rwrite", "overwrite"},
		{"bidi \u202eevil\u202c and \u2066isolate\u2069", "bidi evil and isolate"},
		{"line\n\ttabbed, 日本語 ✓", "line\n\ttabbed, 日本語 ✓"},
	} {
		if got := termText(tt.in); got != tt.want {
			t.Errorf("termText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestTermWriterHoldsASplitRune: a rune cut between two writes is judged
// whole, so neither a good rune nor a C1 control slips through as halves.
func TestTermWriterHoldsASplitRune(t *testing.T) {
	var b strings.Builder
	w := newTermWriter(&b)
	for _, part := range []string{"caf\xc3", "\xa9 ", "\xc2", "\x9b[2J", "\xe2\x80", "\xaeend\n"} {
		if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write(%q) = %d, %v", part, n, err)
		}
	}
	if got, want := b.String(), "café [2Jend\n"; got != want {
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
	if !strings.Contains(outputs[2].stdout, "Shrine]0;owned[2J 1m") {
		t.Errorf("feeds lost the title's text: %q", outputs[2].stdout)
	}
}
