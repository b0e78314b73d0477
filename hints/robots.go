package hints

import (
	"bufio"
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
	// MaxHintURLs is the most URLs a discovery helper returns.
	MaxHintURLs = 100
)

// RobotsSitemaps returns the URL of every Sitemap line of a robots.txt, in
// order and without duplicates. The field name is matched
// case-insensitively, comments are stripped, and relative URLs are resolved
// against base (the robots.txt URL). Only absolute http and https URLs are
// returned. At most MaxRobotsBytes are read and MaxHintURLs returned.
func RobotsSitemaps(r io.Reader, base string) []string {
	b := parseBaseURL(base)
	sc := bufio.NewScanner(io.LimitReader(r, MaxRobotsBytes))
	// A single line may fill the whole cap; a line cut by the cap is still
	// read, since the scanner returns the final unterminated line.
	sc.Buffer(make([]byte, 0, 4096), MaxRobotsBytes+1)
	var out urlSet
	first := true
	for sc.Scan() && out.len() < MaxHintURLs {
		line := sc.Text()
		if first {
			line = strings.TrimPrefix(line, "\ufeff")
			first = false
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		field, value, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(field), "sitemap") {
			continue
		}
		if u, ok := resolveHTTP(b, value); ok {
			out.add(u)
		}
	}
	return out.list
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
