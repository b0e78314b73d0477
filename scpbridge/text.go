package scpbridge

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
)

// hashLine digests a page's line without the white space between tokens.
func hashLine(line []byte) string {
	h := sha256.New()
	writeCompact(h, line)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// writeCompact writes JSON to w without the white space between tokens,
// so that layout alone does not change a page's hash. It assumes valid
// JSON, which the line was.
func writeCompact(w io.Writer, b []byte) {
	inString, start := false, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if start < i {
				w.Write(b[start:i])
			}
			start = i + 1
		}
	}
	if start < len(b) {
		w.Write(b[start:])
	}
}

// clip shortens a value quoted in a warning.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}
