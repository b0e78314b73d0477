package urls

import (
	"net/url"
	"path"
	"strings"
)

// WatchScope is the part of a site a watched collection covers: one origin and
// the pages under one directory.
type WatchScope struct {
	Origin string // scheme://host[:port], canonical
	Dir    string // a path ending in "/"
}

// WatchScopeOf is the scope of a collection started at pageURL: the directory
// the page is in, so that https://host/shrine/ and
// https://host/shrine/index.html both cover /shrine/, and https://host/
// the whole site.
func WatchScopeOf(pageURL string) (WatchScope, bool) {
	c, ok := Canonical(pageURL, false)
	if !ok {
		return WatchScope{}, false
	}
	u, _ := url.Parse(c)
	dir := u.Path
	if !strings.HasSuffix(dir, "/") {
		dir = path.Dir(dir)
		if !strings.HasSuffix(dir, "/") {
			dir += "/"
		}
	}
	return WatchScope{Origin: u.Scheme + "://" + u.Host, Dir: dir}, true
}

// URL is the scope written as an address: the collection's key.
func (s WatchScope) URL() string { return s.Origin + s.Dir }

// Contains reports whether the canonical URL u is in the scope: same
// scheme, host and port, and a path under its directory.
func (s WatchScope) Contains(u string) bool {
	rest, ok := strings.CutPrefix(u, s.Origin)
	return ok && strings.HasPrefix(rest, s.Dir)
}
