package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/feeds"
)

// feedFile reads "<name>.<atom|rss|json>" from the path.
func feedFile(c echo.Context) (string, feeds.Format, error) {
	name, ext, ok := cutLast(c.Param("file"), ".")
	format, known := feeds.FormatByExt(ext)
	if !ok || !known || name == "" {
		return "", 0, errNoFeed
	}
	return name, format, nil
}

var errNoFeed = echo.NewHTTPError(http.StatusNotFound, "No such feed.")

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// collectionFeed serves a collection's feed by its public id. The
// sequential numbers of before public ids name no feed: answered, they
// would let anyone count and list what this tidings follows.
func (s *Server) collectionFeed(c echo.Context) error {
	publicID, format, err := feedFile(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	spec, err := s.build.CollectionSpecByPublicID(ctx, publicID)
	return s.answerFeed(c, gen, spec, err, format)
}

// siteFeed is collectionFeed for a site's feed.
func (s *Server) siteFeed(c echo.Context) error {
	publicID, format, err := feedFile(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	spec, err := s.build.SiteSpecByPublicID(ctx, publicID)
	return s.answerFeed(c, gen, spec, err, format)
}

// answerFeed serves a collection's or site's feed once its spec is
// loaded: 404 and 410 as the error says. While the database is
// unavailable, the copy the cache holds is served as it is, if there is
// one: a reader is better served by a feed that may lag than by an error.
func (s *Server) answerFeed(c echo.Context, gen uint64, spec *feedbuild.Spec, err error, format feeds.Format) error {
	if errors.Is(err, db.ErrNotFound) {
		return errNoFeed
	}
	if gone, ok := errors.AsType[*feedbuild.GoneError](err); ok {
		return echo.NewHTTPError(http.StatusGone, gone.Message())
	}
	if err == nil {
		err = s.serveFeed(c, gen, spec, format, true)
	}
	if db.IsUnavailable(err) && s.serveStale(c) {
		s.opts.Logger.Warn("feed served from the cache: the database is unavailable", "path", c.Request().URL.Path, "error", err)
		return nil
	}
	return err
}
