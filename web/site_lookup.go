package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"tidings/db"
)

var (
	errNoSite = echo.NewHTTPError(http.StatusNotFound,
		"There is no site at this address here. It may have been mistyped, or tidings no longer knows the site.")
	errNoCollection = echo.NewHTTPError(http.StatusNotFound,
		"There is no collection at this address here. It may have been mistyped, or its site no longer lists it.")
	errNotFollowed = echo.NewHTTPError(http.StatusNotFound, "You do not follow this site.")
)

// sitePath is where a site's page is, relative to the base URL.
func sitePath(site db.Site) string { return "site/" + site.PublicID }

// collectionPath is where a collection's page is, relative to the base URL.
func collectionPath(col db.Collection) string { return "collection/" + col.PublicID }

// numericID reports whether a path's id is an old, sequential one.
func numericID(param string) (int64, bool) {
	id, err := strconv.ParseInt(param, 10, 64)
	return id, err == nil && id > 0
}

// mayUseNumericIDs says whether the request may name sites and collections
// by their sequential ids: an admin's only. Answered to anyone, they would
// let them count and list what this tidings follows.
func mayUseNumericIDs(c echo.Context) bool {
	u := currentUser(c)
	return u != nil && u.Admin
}

// pathSite loads the site named in the path, by its public id or, for an
// admin, as addresses were before public ids, by its number. numeric
// says which.
func (s *Server) pathSite(c echo.Context) (site db.Site, numeric bool, err error) {
	ctx := c.Request().Context()
	id, numeric := numericID(c.Param("id"))
	switch {
	case numeric && !mayUseNumericIDs(c):
		err = db.ErrNotFound
	case numeric:
		site, err = s.store.SiteByID(ctx, id)
	default:
		site, err = s.store.SiteByPublicID(ctx, c.Param("id"))
	}
	if errors.Is(err, db.ErrNotFound) {
		return db.Site{}, numeric, errNoSite
	}
	return site, numeric, err
}

// pathCollection is pathSite for a collection.
func (s *Server) pathCollection(c echo.Context) (col db.Collection, numeric bool, err error) {
	ctx := c.Request().Context()
	id, numeric := numericID(c.Param("id"))
	switch {
	case numeric && !mayUseNumericIDs(c):
		err = db.ErrNotFound
	case numeric:
		col, err = s.store.CollectionByID(ctx, id)
	default:
		col, err = s.store.CollectionByPublicID(ctx, c.Param("id"))
	}
	if errors.Is(err, db.ErrNotFound) {
		return db.Collection{}, numeric, errNoCollection
	}
	return col, numeric, err
}

// followedSite loads the site in the path if the signed-in user follows
// it, for the actions only a follower may take.
func (s *Server) followedSite(c echo.Context) (db.Site, error) {
	site, _, err := s.pathSite(c)
	if err != nil {
		return db.Site{}, err
	}
	ok, err := s.store.Follows(c.Request().Context(), currentUser(c).ID, site.ID)
	if err != nil {
		return db.Site{}, err
	}
	if !ok {
		return db.Site{}, errNotFollowed
	}
	return site, nil
}

// movedTo answers an admin's old numeric page address with a permanent
// redirect to its public one, keeping the query.
func (s *Server) movedTo(c echo.Context, path string) error {
	to := s.abs(path)
	if q := c.Request().URL.RawQuery; q != "" {
		to += "?" + q
	}
	return c.Redirect(http.StatusMovedPermanently, to)
}
