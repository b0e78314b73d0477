package pageset

import "strings"

// Key is what tells one page from another: "/x", "/x/",
// "/x/index.html" and "/x.html" are often one page, served by either
// scheme, with or without "www.".
func Key(u string) string {
	s := u
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	host, rest := s, ""
	if i := strings.IndexByte(s, '/'); i >= 0 {
		host, rest = s[:i], s[i:]
	}
	path, query := rest, ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		path, query = rest[:i], rest[i:]
	}
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query = query[:i]
	}
	path = strings.TrimSuffix(path, "index.html")
	path = strings.TrimSuffix(path, ".html")
	path = strings.TrimSuffix(path, "/")
	return strings.TrimPrefix(strings.ToLower(host), "www.") + path + query
}

// SameAddress reports whether a page that redirected from a to b is still
// itself ("/x" to "/x/", http to https); a login page or the home page is
// not.
func SameAddress(a, b string) bool { return Key(a) == Key(b) }
