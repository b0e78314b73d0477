package pagetext

import (
	"strings"
	"unicode/utf8"
)

// Clip collapses white space and cuts s to at most max bytes, on a
// character boundary, marking the cut: for titles, summaries and other
// short text a site gives, kept bounded whatever it serves.
func Clip(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
