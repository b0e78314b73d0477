package web

import (
	"errors"
	"net/http"
	"strconv"
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

// feedID reads "<id>.<format>" from the path.
func feedID(c echo.Context) (int64, feeds.Format, error) {
	name, format, err := feedFile(c)
	if err != nil {
		return 0, 0, err
	}
	id, err := strconv.ParseInt(name, 10, 64)
	// One feed, one URL: "01.atom" and "+1.atom" are not aliases.
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != name {
		return 0, 0, errNoFeed
	}
	return id, format, nil
}

var errNoFeed = echo.NewHTTPError(http.StatusNotFound, "No such feed.")

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

func (s *Server) collectionFeed(c echo.Context) error {
	id, format, err := feedID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	spec, err := s.build.CollectionSpec(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return errNoFeed
	}
	if gone, ok := errors.AsType[*feedbuild.GoneError](err); ok {
		return echo.NewHTTPError(http.StatusGone, gone.Message())
	}
	if err != nil {
		return err
	}
	return s.serveFeed(c, gen, spec, format, true)
}

func (s *Server) siteFeed(c echo.Context) error {
	id, format, err := feedID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	spec, err := s.build.SiteSpec(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return errNoFeed
	}
	if gone, ok := errors.AsType[*feedbuild.GoneError](err); ok {
		return echo.NewHTTPError(http.StatusGone, gone.Message())
	}
	if err != nil {
		return err
	}
	return s.serveFeed(c, gen, spec, format, true)
}
