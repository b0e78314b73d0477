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

// feedName reads "<name>.<format>" from the path: name is either a
// public id or, in addresses from before public ids, a number (numeric
// is then > 0). One feed, one URL: "01.atom" and "+1.atom" are neither.
func feedName(c echo.Context) (publicID string, numeric int64, format feeds.Format, err error) {
	name, format, err := feedFile(c)
	if err != nil {
		return "", 0, 0, err
	}
	if id, err := strconv.ParseInt(name, 10, 64); err == nil {
		if id <= 0 || strconv.FormatInt(id, 10) != name {
			return "", 0, 0, errNoFeed
		}
		return "", id, format, nil
	}
	return name, 0, format, nil
}

var errNoFeed = echo.NewHTTPError(http.StatusNotFound, "No such feed.")

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

func (s *Server) collectionFeed(c echo.Context) error {
	publicID, numeric, format, err := feedName(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	var spec *feedbuild.Spec
	if numeric > 0 {
		spec, err = s.build.CollectionSpec(ctx, numeric)
	} else {
		spec, err = s.build.CollectionSpecByPublicID(ctx, publicID)
	}
	return s.answerFeed(c, gen, spec, err, format, numeric > 0)
}

func (s *Server) siteFeed(c echo.Context) error {
	publicID, numeric, format, err := feedName(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	var spec *feedbuild.Spec
	if numeric > 0 {
		spec, err = s.build.SiteSpec(ctx, numeric)
	} else {
		spec, err = s.build.SiteSpecByPublicID(ctx, publicID)
	}
	return s.answerFeed(c, gen, spec, err, format, numeric > 0)
}

// answerFeed serves a collection's or site's feed once its spec is
// loaded: 404 and 410 as the error says, and under an old numeric address
// a permanent redirect to the public one, so readers update what they
// store. A gone feed answers 410 under both forms: it has nowhere to go.
func (s *Server) answerFeed(c echo.Context, gen uint64, spec *feedbuild.Spec, err error, format feeds.Format, numeric bool) error {
	if errors.Is(err, db.ErrNotFound) {
		return errNoFeed
	}
	if gone, ok := errors.AsType[*feedbuild.GoneError](err); ok {
		return echo.NewHTTPError(http.StatusGone, gone.Message())
	}
	if err != nil {
		return err
	}
	if numeric {
		to := s.abs(spec.Path + "." + format.Ext())
		if q := c.Request().URL.RawQuery; q != "" {
			to += "?" + q
		}
		return c.Redirect(http.StatusMovedPermanently, to)
	}
	return s.serveFeed(c, gen, spec, format, true)
}
