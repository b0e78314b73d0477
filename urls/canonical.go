package urls

import (
	"net/url"
	"path"
	"strings"
)

// MaxURLBytes: a longer address is no page's, as the sitemap protocol's
// limit says of any URL tidings keeps.
const MaxURLBytes = 2048

// Canonical is the one way tidings writes a page's address: an absolute
// http or https URL with its scheme and host in lower case, without a
// default port, a fragment or dot segments, and with a directory's index
// file written as the directory (/x/index.html is /x/). The query is kept
// only when keepQuery is set, its parameters sorted. ok is false for
// anything else (mailto:, javascript:, a URL too long to keep).
func Canonical(raw string, keepQuery bool) (string, bool) {
	if len(raw) > MaxURLBytes {
		return "", false
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !u.IsAbs() || u.Host == "" || u.User != nil {
		return "", false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	p := withoutSession(u.EscapedPath())
	if p == "" {
		p = "/"
	}
	dir := strings.HasSuffix(p, "/")
	p = path.Clean(p)
	if dir && p != "/" {
		p += "/"
	}
	for _, index := range []string{"index.html", "index.htm"} {
		if strings.HasSuffix(p, "/"+index) {
			p = strings.TrimSuffix(p, index)
		}
	}
	out := u.Scheme + "://" + host + p
	if keepQuery && u.RawQuery != "" {
		if q, err := url.ParseQuery(u.RawQuery); err == nil && len(dropSessionKeys(q)) > 0 {
			out += "?" + q.Encode()
		}
	}
	if len(out) > MaxURLBytes {
		return "", false
	}
	return out, true
}

// AliasKey is what the spellings of one page share: /x, /x/, /x.html and
// /x/index.html all give /x. Static hosts answer several of them with the
// same page, so a crawl that has one of them does not fetch the others.
func AliasKey(canonical string) string {
	base, query, _ := strings.Cut(canonical, "?")
	base = strings.TrimSuffix(base, "/")
	for _, ext := range []string{".html", ".htm"} {
		base = strings.TrimSuffix(base, ext)
	}
	if query != "" {
		return base + "?" + query
	}
	return base
}

// sessionKeys are query parameters that carry a visitor's session, not
// what the page shows: a site that writes them into its links would
// otherwise be crawled once per visit, every page again under a new name.
var sessionKeys = map[string]bool{
	"jsessionid": true, "phpsessid": true, "sid": true, "sessionid": true, "session_id": true,
	"sessid": true, "cfid": true, "cftoken": true, "zenid": true, "oscsid": true, "aspsessionid": true,
}

// dropSessionKeys removes the session parameters from q, and returns it.
func dropSessionKeys(q url.Values) url.Values {
	for k := range q {
		if sessionKeys[strings.ToLower(k)] {
			delete(q, k)
		}
	}
	return q
}

// withoutSession removes a session from a path: a ;jsessionid=… path
// parameter, an ASP.NET cookieless /(S(…))/ segment, and a /s/<id>/
// segment whose id looks generated (long, letters and digits).
func withoutSession(p string) string {
	segs := strings.Split(p, "/")
	out := segs[:0]
	for i := 0; i < len(segs); i++ {
		s := segs[i]
		if j := strings.Index(strings.ToLower(s), ";jsessionid="); j >= 0 {
			s = s[:j]
		}
		if strings.HasPrefix(s, "(S(") || strings.HasPrefix(s, "%28S%28") {
			continue
		}
		if s == "s" && i+1 < len(segs) && i+2 < len(segs) && sessionLike(segs[i+1]) {
			i++ // the id goes with its "s"
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, "/")
}

// sessionLike: an id a server made up, not words a person wrote: long,
// letters and digits mixed, no separators.
func sessionLike(s string) bool {
	if len(s) < 16 {
		return false
	}
	letters, digits := 0, 0
	for _, r := range s {
		switch {
		case '0' <= r && r <= '9':
			digits++
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			letters++
		default:
			return false
		}
	}
	return letters >= 4 && digits >= 4
}
