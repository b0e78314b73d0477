package hints

import "strings"

// LinkHeader parses HTTP Link header values (RFC 8288) and returns, in
// order and without duplicates, the target of every link whose rel
// parameter includes rel (compared case-insensitively). A value may hold
// several comma-separated links; rel may be quoted and hold several
// space-separated types. Targets are resolved against base (the request
// URL) and only absolute http and https URLs are returned, at most
// MaxHintURLs of them. Malformed links are skipped.
func LinkHeader(values []string, base, rel string) []string {
	b := parseBaseURL(base)
	var out urlSet
	for _, v := range values {
		for _, l := range parseLinkValue(v) {
			if out.len() >= MaxHintURLs {
				return out.list
			}
			if !HasToken(l.rel, rel) {
				continue
			}
			if u, ok := resolveHTTP(b, l.target); ok {
				out.add(u)
			}
		}
	}
	return out.list
}

// headerLink is one link of a Link header, reduced to what LinkHeader
// needs.
type headerLink struct {
	target string
	rel    string
	hasRel bool
}

// parseLinkValue splits one header value into its links.
func parseLinkValue(s string) []headerLink {
	var links []headerLink
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			return links
		}
		if s[0] != '<' {
			s = skipLink(s)
			continue
		}
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return links
		}
		l := headerLink{target: s[1:end]}
		s = linkParams(s[end+1:], &l)
		links = append(links, l)
	}
}

// linkParams reads the ";name=value" parameters of one link into l and
// returns what follows the link.
func linkParams(s string, l *headerLink) string {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return ""
		}
		switch s[0] {
		case ',':
			return s[1:]
		case ';':
		default:
			return skipLink(s)
		}
		s = strings.TrimLeft(s[1:], " \t")
		end := strings.IndexAny(s, "=;, \t")
		if end < 0 {
			end = len(s)
		}
		name := strings.ToLower(s[:end])
		s = strings.TrimLeft(s[end:], " \t")
		var value string
		if strings.HasPrefix(s, "=") {
			value, s = paramValue(strings.TrimLeft(s[1:], " \t"))
		}
		// RFC 8288 §3.3: occurrences of rel after the first are ignored.
		if name == "rel" && !l.hasRel {
			l.rel, l.hasRel = value, true
		}
	}
}

// paramValue reads a token or a quoted string and returns it with the rest
// of s.
func paramValue(s string) (value, rest string) {
	if !strings.HasPrefix(s, `"`) {
		end := strings.IndexAny(s, ";, \t")
		if end < 0 {
			return s, ""
		}
		return s[:end], s[end:]
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:]
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	// An unterminated quote swallows the rest of the value, as it would in
	// any parser that honours quoting.
	return b.String(), ""
}

// skipLink discards the rest of a malformed link, up to the next comma
// that is not inside <…> or quotes, and returns what follows it.
func skipLink(s string) string {
	inQuote, inAngle := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"' && !inAngle:
			inQuote = !inQuote
		case c == '<' && !inQuote:
			inAngle = true
		case c == '>' && !inQuote:
			inAngle = false
		case c == ',' && !inQuote && !inAngle:
			return s[i+1:]
		}
	}
	return ""
}
