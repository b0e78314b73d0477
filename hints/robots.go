package hints

import (
	"bufio"
	"bytes"
	"io"
	"net/url"
	"strings"
)

// Limits on discovery input: hints come from pages and files the site
// controls, so neither their size nor the number of URLs they yield may be
// left to the site.
const (
	// MaxRobotsBytes is how much of a robots.txt RobotsSitemaps reads.
	MaxRobotsBytes = 500 << 10
	// MaxRobotsLine is how much of one robots.txt line RobotsSitemaps
	// reads, as Google's parser does (2,083 × 8 bytes); the rest of a
	// longer line is skipped unread.
	MaxRobotsLine = 2083 * 8
	// MaxHintURLs is the most URLs a discovery helper returns.
	MaxHintURLs = 100
)

// RobotsSitemaps returns the URL of every Sitemap line of a robots.txt, in
// order and without duplicates. The field name is matched
// case-insensitively, comments are stripped, and relative URLs are resolved
// against base (the robots.txt URL). Only absolute http and https URLs of
// at most MaxURLBytes are returned. At most MaxRobotsBytes are read, a line
// at a time and MaxRobotsLine bytes of each, and MaxHintURLs returned.
func RobotsSitemaps(r io.Reader, base string) []string {
	b := parseBaseURL(base)
	lines := robotsLines{r: bufio.NewReader(io.LimitReader(r, MaxRobotsBytes))}
	var out urlSet
	for out.len() < MaxHintURLs {
		line, ok := lines.next()
		if !ok {
			break
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		field, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !bytes.EqualFold(bytes.TrimSpace(field), []byte("sitemap")) {
			continue
		}
		// A value cut short with its line is longer than any URL kept,
		// so it is never taken for the URL it began.
		if u, ok := resolveHTTP(b, string(value)); ok && len(u) <= MaxURLBytes {
			out.add(u)
		}
	}
	return out.list
}

// robotsLines reads a robots.txt a line at a time, keeping MaxRobotsLine
// bytes of a line at most: a file of one 36 MB line costs no more than a
// file of short ones.
type robotsLines struct {
	r     *bufio.Reader
	line  []byte
	first bool // a line was read, so a BOM is no longer looked for
}

// next returns the next line, without its end of line, valid until the
// next call.
func (l *robotsLines) next() ([]byte, bool) {
	l.line = l.line[:0]
	read := false
	for {
		frag, err := l.r.ReadSlice('\n')
		read = read || len(frag) > 0
		if room := MaxRobotsLine - len(l.line); room > 0 {
			l.line = append(l.line, frag[:min(len(frag), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && !read {
			return nil, false
		}
		break
	}
	line := bytes.TrimSuffix(bytes.TrimSuffix(l.line, []byte("\n")), []byte("\r"))
	if !l.first {
		l.first = true
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	return line, true
}

// urlSet keeps URLs in the order first seen, without duplicates.
type urlSet struct {
	list []string
	seen map[string]bool
}

func (s *urlSet) len() int { return len(s.list) }

func (s *urlSet) add(u string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[u] {
		s.seen[u] = true
		s.list = append(s.list, u)
	}
}

// parseBaseURL parses a base URL, returning nil when it is unusable so that
// only absolute references survive resolution.
func parseBaseURL(base string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || !u.IsAbs() {
		return nil
	}
	return u
}

// resolveHTTP trims ref, resolves it against base (which may be nil) and
// keeps it only if the result is an absolute http or https URL with a host:
// discovery hints are fetched next, and nothing else is fetchable.
func resolveHTTP(base *url.URL, ref string) (string, bool) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", false
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Host == "" {
		return "", false
	}
	return u.String(), true
}
