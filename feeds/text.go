package feeds

import (
	"net"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// CleanText makes s safe to write as XML 1.0 character data: each run of
// invalid UTF-8 becomes U+FFFD and characters XML 1.0 forbids (most C0
// controls, U+FFFE, U+FFFF) are dropped.
func CleanText(s string) string {
	if xmlSafe(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if xmlChar(r) {
			return r
		}
		return -1
	}, s)
}

func xmlSafe(s string) bool {
	for _, r := range s {
		if !xmlChar(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// xmlChar reports whether r matches the Char production of XML 1.0.
func xmlChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r >= 0x20 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= utf8.MaxRune:
		return true
	}
	return false
}

// SafeURL returns raw as an absolute http or https URL, or "" when it is
// anything else (javascript:, data:, relative, unparsable, holding
// characters XML forbids or invalid UTF-8), so that text
// from sites never becomes a link to another scheme.
func SafeURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || !xmlSafe(raw) {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return ""
	}
	u.Scheme = strings.ToLower(u.Scheme)
	return u.String()
}

// TagURI builds an RFC 4151 tag URI, tag:<host>,<YYYY-MM-DD>:<specific>,
// with the date taken in UTC. The host is lowercased, loses any port and
// is converted to its ASCII (punycode) form; bytes of specific that the
// tag grammar does not allow are percent-encoded.
func TagURI(host string, date time.Time, specific string) string {
	var b strings.Builder
	b.WriteString("tag:")
	b.WriteString(tagHost(host))
	b.WriteByte(',')
	b.WriteString(date.UTC().Format(time.DateOnly))
	b.WriteByte(':')
	b.WriteString(tagSpecific(specific))
	return b.String()
}

func tagHost(host string) string {
	host = strings.TrimSpace(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := idna.ToASCII(host); err == nil {
		host = a
	}
	return tagSpecific(host)
}

// tagSpecific percent-encodes every byte that is neither a pchar of
// RFC 3986 nor "/" or "?", keeping escapes that are already well formed.
func tagSpecific(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case tagByte(c):
			b.WriteByte(c)
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
		}
	}
	return b.String()
}

func tagByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/?", c) >= 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
