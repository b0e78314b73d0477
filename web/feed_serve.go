package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feeds"
)

// Bounds of a feed's Cache-Control max-age, which otherwise lasts until
// the next harvest of its site(s).
const (
	minFeedMaxAge = time.Minute
	maxFeedMaxAge = 24 * time.Hour
)

// DefaultFailingAfter is how long a collection's harvests fail before its
// feeds say so.
const DefaultFailingAfter = 72 * time.Hour

// feedSpec is one feed, whatever its format and page.
type feedSpec struct {
	scope   db.Scope
	path    string // relative to the base URL, without the extension
	format  feeds.Format
	public  bool       // may shared caches keep it (not for secret addresses)
	meta    feeds.Feed // ID, Title, Subtitle, AlternateURL
	created time.Time  // the feed's Updated while it has no entries
	// collections loads the collections the entries may come from.
	collections func() (map[int64]db.Collection, error)
}

// serveFeed answers a request for a feed: from the cache when the stored
// data has not changed since it was rendered, with 304 when the reader's
// copy is current, gzip'd when the reader accepts it.
func (s *Server) serveFeed(c echo.Context, spec *feedSpec) error {
	q := c.Request().URL.Query()
	perPage := q.Get("entries") == "page"
	var before *cursor
	if v, ok := q["before"]; ok {
		cur, ok := parseCursor(v[0])
		if !ok || len(v) > 1 {
			return echo.NewHTTPError(http.StatusBadRequest, "This page of the feed does not exist: its before= parameter is not one tidings wrote.")
		}
		before = &cur
	}
	// The stamp is read before anything it vouches for.
	stamp, err := s.store.Stamp(c.Request().Context(), spec.scope)
	if err != nil {
		return err
	}
	key := ""
	if before == nil {
		// Only the newest page of each feed is cached: older pages are
		// rarely read, and their cursors are unbounded in number.
		key = spec.path + "." + spec.format.Ext() + "?page=" + strconv.FormatBool(perPage)
	}
	r := s.feedCache.get(key, stamp.Version)
	if r == nil {
		if r, err = s.renderFeed(c, spec, perPage, before, stamp); err != nil {
			return err
		}
		s.feedCache.put(key, r)
	}
	return s.writeFeed(c, spec, r, stamp)
}

func (s *Server) renderFeed(c echo.Context, spec *feedSpec, perPage bool, before *cursor, stamp db.FeedStamp) (*rendered, error) {
	cols, err := spec.collections()
	if err != nil {
		return nil, err
	}
	p, err := s.loadPage(c.Request().Context(), spec, perPage, before, stamp, cols)
	if err != nil {
		return nil, err
	}
	f := spec.meta
	f.Updated = p.updated
	f.HubURL = s.opts.HubURL
	f.SelfURL = s.feedURL(spec, perPage, before)
	if before != nil {
		f.FirstURL = s.feedURL(spec, perPage, nil)
	}
	if p.next != nil {
		f.NextURL = s.feedURL(spec, perPage, p.next)
	}
	f.Entries = p.entries
	var buf bytes.Buffer
	if err := feeds.Write(&buf, &f, spec.format); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(buf.Bytes())
	return &rendered{
		version: stamp.Version,
		body:    buf.Bytes(),
		etag:    `W/"` + hex.EncodeToString(sum[:16]) + `"`,
		lastMod: p.updated.UTC().Truncate(time.Second),
	}, nil
}

// feedURL is the absolute URL of one page of a feed in spec's format.
func (s *Server) feedURL(spec *feedSpec, perPage bool, before *cursor) string {
	u := s.abs(spec.path + "." + spec.format.Ext())
	q := url.Values{}
	if perPage {
		q.Set("entries", "page")
	}
	if before != nil {
		q.Set("before", before.String())
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func (s *Server) writeFeed(c echo.Context, spec *feedSpec, r *rendered, stamp db.FeedStamp) error {
	h := c.Response().Header()
	h.Set("ETag", r.etag)
	h.Set("Last-Modified", r.lastMod.Format(http.TimeFormat))
	scope := "private"
	if spec.public {
		scope = "public"
	}
	h.Set("Cache-Control", fmt.Sprintf("%s, max-age=%d", scope, int(s.feedMaxAge(stamp.NextHarvest).Seconds())))
	h.Add("Vary", "Accept-Encoding")
	req := c.Request()
	if notModified(req, r.etag, r.lastMod) {
		return c.NoContent(http.StatusNotModified)
	}
	body := r.body
	if acceptsGzip(req.Header.Get("Accept-Encoding")) {
		body = r.gzipped()
		h.Set("Content-Encoding", "gzip")
	}
	return c.Blob(http.StatusOK, spec.format.MediaType()+"; charset=utf-8", body)
}

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
	for _, tag := range strings.Split(header, ",") {
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
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "x-gzip" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
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
