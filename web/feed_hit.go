package web

import (
	"net/http"
	"strings"

	"tidings/metrics"
)

// feedRoutes maps the path prefix of each kind of feed to the kind, as the
// metrics label it.
var feedRoutes = []struct{ prefix, kind string }{
	{"/feeds/", metrics.FeedCollection},
	{"/sites/", metrics.FeedSite},
	{"/u/", metrics.FeedUser},
}

// ServeHTTP answers the requests the feed cache can answer by itself
// before echo sees them, and hands every other request to echo. A feed
// reader's poll is most of what tidings serves; answering it from memory
// without routing, middleware or a query keeps it close to what net/http
// alone achieves.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.serveFeedHit(w, r) {
		s.echo.ServeHTTP(w, r)
	}
}

// serveFeedHit answers a request for the newest page of a feed when the
// cache holds it and nothing was written to the database since it was
// found current. Only paths the feed routes would route, as stored by
// serveFeed, are in the cache, so a hit answers what the route would.
func (s *Server) serveFeedHit(w http.ResponseWriter, r *http.Request) bool {
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || r.URL.RawPath != "" {
		return false
	}
	perPage := false
	switch r.URL.RawQuery {
	case "":
	case "entries=page":
		perPage = true
	default:
		return false // paging, or a spelling serveFeed sorts out
	}
	path := s.routedPath(r.URL.Path)
	kind := ""
	for _, fr := range feedRoutes {
		if strings.HasPrefix(path, fr.prefix) {
			kind = fr.kind
			break
		}
	}
	if kind == "" {
		return false
	}
	gen := s.store.Generation(r.Context())
	e := s.feedCache.get(feedCacheKey(path[1:], perPage))
	if e == nil || e.gen != gen {
		return false
	}
	h := w.Header()
	setSecurityHeaders(h)
	if !e.public {
		h["X-Robots-Tag"] = noindex
	}
	code := s.writeFeed(w, r, e)
	if m := s.opts.Metrics; m != nil {
		m.FeedAnswered(kind, code)
	}
	return true
}

var noindex = []string{"noindex"}

// securityHeaders go with every answer. The value slices are shared by
// every response: headers are only ever replaced or appended to (which
// copies a full slice), never written in place.
var securityHeaders = []struct {
	name  string // canonical, as http.Header keys are
	value []string
}{
	{"X-Content-Type-Options", []string{"nosniff"}},
	{"X-Frame-Options", []string{"DENY"}},
	{"Content-Security-Policy", []string{"default-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"}},
	{"Referrer-Policy", []string{"same-origin"}},
}

func setSecurityHeaders(h http.Header) {
	for _, sh := range securityHeaders {
		h[sh.name] = sh.value
	}
}
