package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"tidings/accounts"
	"tidings/db"
)

// userFeed serves everything a user follows. An unknown or replaced token
// is a 404, the same as a feed that never existed.
func (s *Server) userFeed(c echo.Context) error {
	token, format, err := feedFile(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	spec, err := s.build.UserSpec(ctx, token)
	if errors.Is(err, db.ErrNotFound) {
		return errNoFeed
	}
	if err != nil {
		return err
	}
	c.Response().Header()["X-Robots-Tag"] = noindex
	return s.serveFeed(c, gen, spec, format, false)
}

func (s *Server) feedTokenRegenerate(c echo.Context) error {
	if err := s.store.SetFeedToken(c.Request().Context(), currentUser(c).ID, accounts.NewToken()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs("")+"?done=feed-address")
}
