package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/feeds"
)

// Bounds of a feed's Cache-Control max-age, which otherwise lasts until
// the next harvest of its site(s).
const (
	minFeedMaxAge = time.Minute
	maxFeedMaxAge = 24 * time.Hour
)

// serveFeed answers a request for a feed: from the cache when the stored
// data has not changed since it was rendered, with 304 when the reader's
// copy is current, gzip'd when the reader accepts it. gen is the store's
// Generation, read before anything the handler loaded; public says whether
// shared caches may keep it (not for secret addresses).
func (s *Server) serveFeed(c echo.Context, gen uint64, spec *feedbuild.Spec, format feeds.Format, public bool) error {
	q := c.Request().URL.Query()
	perPage := q.Get("entries") == "page"
	var before *feedbuild.Cursor
	if v, ok := q["before"]; ok {
		cur, ok := feedbuild.ParseCursor(v[0])
		if !ok || len(v) > 1 {
			return echo.NewHTTPError(http.StatusBadRequest, "This page of the feed does not exist: its before= parameter is not one tidings wrote.")
		}
		before = &cur
	}
	// The stamp is read before anything it vouches for.
	stamp, err := s.store.Stamp(c.Request().Context(), spec.Scope)
	if err != nil {
		return err
	}
	// Only the newest page of each feed is cached: older pages are rarely
	// read, and their cursors are unbounded in number.
	key := feedCacheKey(spec.Path+"."+format.Ext(), perPage)
	var r *rendered
	if before == nil {
		if e := s.feedCache.get(key); e != nil && e.r.version == stamp.Version {
			r = e.r
		}
	}
	if r == nil {
		if r, err = s.renderFeed(c, spec, format, feedbuild.Page{PerPage: perPage, Before: before}, stamp); err != nil {
			return err
		}
	}
	e := &cached{r: r, gen: gen, next: stamp.NextHarvest, public: public}
	if before == nil {
		s.feedCache.put(key, e)
	}
	s.writeFeed(c.Response(), c.Request(), e)
	return nil
}

// serveStale answers with the newest page of the feed the request names
// as the cache holds it, current or not, for when the database cannot say
// what is current; the reader is asked back within minFeedMaxAge. It
// reports whether the cache held the page.
func (s *Server) serveStale(c echo.Context) bool {
	req := c.Request()
	q := req.URL.Query()
	if _, paged := q["before"]; paged {
		return false
	}
	e := s.feedCache.get(feedCacheKey(strings.TrimPrefix(req.URL.Path, "/"), q.Get("entries") == "page"))
	if e == nil {
		return false
	}
	stale := *e
	stale.next = nil
	s.writeFeed(c.Response(), req, &stale)
	return true
}

// renderFeed builds one document of a feed and renders it, with its
// validators.
func (s *Server) renderFeed(c echo.Context, spec *feedbuild.Spec, format feeds.Format, pg feedbuild.Page, stamp db.FeedStamp) (*rendered, error) {
	f, err := s.build.Build(c.Request().Context(), spec, format, pg, stamp)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := feeds.Write(&buf, f, format); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(buf.Bytes())
	etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
	return newRendered(stamp.Version, buf.Bytes(), etag, format.MediaType()+"; charset=utf-8", f.Updated), nil
}

// writeFeed answers with a cached document: its validators, how long to
// keep it, and the body unless the reader's copy is current. It returns
// the status code sent. Header values are set as prepared slices under
// canonical keys: this runs for every feed request.
func (s *Server) writeFeed(w http.ResponseWriter, req *http.Request, e *cached) int {
	r := e.r
	h := w.Header()
	h["Etag"] = r.etagHdr
	scope := "private, max-age="
	if e.public {
		scope = "public, max-age="
	}
	h["Cache-Control"] = []string{scope + strconv.Itoa(int(s.feedMaxAge(e.next).Seconds()))}
	if v := h["Vary"]; len(v) > 0 {
		h["Vary"] = append(v, "Accept-Encoding")
	} else {
		h["Vary"] = varyAcceptEncoding
	}
	// A 304 carries no Last-Modified beside the ETag (RFC 9110, section
	// 15.4.5): the reader keeps the one it has.
	if notModified(req, r.etag, r.lastMod) {
		w.WriteHeader(http.StatusNotModified)
		return http.StatusNotModified
	}
	h["Last-Modified"] = r.lastModHdr
	body, length := r.body, r.lengthHdr
	if acceptsGzip(req.Header.Get("Accept-Encoding")) {
		body, length = r.gzipped()
		h["Content-Encoding"] = gzipEncoding
	}
	// Sent up front, a length spares the reader chunked encoding.
	h["Content-Length"] = length
	h["Content-Type"] = r.contentTypeHdr
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return http.StatusOK
}

var (
	varyAcceptEncoding = []string{"Accept-Encoding"}
	gzipEncoding       = []string{"gzip"}
)

// feedMaxAge lasts until the next harvest, within bounds: a reader asking
// before then would get the same feed.
func (s *Server) feedMaxAge(next *time.Time) time.Duration {
	d := minFeedMaxAge
	if next != nil {
		d = next.Sub(s.now())
	}
	return min(max(d, minFeedMaxAge), maxFeedMaxAge).Truncate(time.Second)
}

// notModified applies If-None-Match, or when there is none
// If-Modified-Since (RFC 9110 section 13.2.2).
func notModified(r *http.Request, etag string, lastMod time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return etagMatches(inm, etag)
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		t, err := http.ParseTime(ims)
		return err == nil && !lastMod.After(t)
	}
	return false
}

// etagMatches compares weakly, as If-None-Match does.
func etagMatches(header, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for header != "" {
		var tag string
		tag, header, _ = strings.Cut(header, ",")
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
			return true
		}
	}
	return false
}

// acceptsGzip reads an Accept-Encoding header: gzip (or x-gzip) listed
// without q=0.
func acceptsGzip(header string) bool {
	for header != "" {
		var part string
		part, header, _ = strings.Cut(header, ",")
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.TrimSpace(coding)
		if !strings.EqualFold(coding, "gzip") && !strings.EqualFold(coding, "x-gzip") {
			continue
		}
		q := 1.0
		for params != "" {
			var p string
			p, params, _ = strings.Cut(params, ";")
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		return q > 0
	}
	return false
}
