package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feeds"
)

// UserFeedPath is a user's aggregate feed, relative to the base URL; the
// token is its only protection.
func UserFeedPath(token string) string { return "u/" + token + ".atom" }

// userFeed serves everything a user follows. An unknown or replaced token
// is a 404, the same as a feed that never existed.
func (s *Server) userFeed(c echo.Context) error {
	token, ok := strings.CutSuffix(c.Param("file"), ".atom")
	if !ok || token == "" {
		return echo.NewHTTPError(http.StatusNotFound, "No such feed.")
	}
	ctx := c.Request().Context()
	u, err := s.store.UserByFeedToken(ctx, token)
	if errors.Is(err, db.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "No such feed.")
	}
	if err != nil {
		return err
	}
	list, err := s.store.Collections(ctx, db.CollectionFilter{})
	if err != nil {
		return err
	}
	cols := map[int64]db.Collection{}
	for _, col := range list {
		cols[col.ID] = col
	}
	f := &feeds.Feed{
		ID:           s.tag(u.CreatedAt, fmt.Sprintf("user/%d", u.ID)),
		Title:        "Everything " + u.Name + " follows",
		Updated:      u.CreatedAt,
		SelfURL:      s.abs(UserFeedPath(token)),
		AlternateURL: s.abs(""),
	}
	if err := s.fillEntries(c, f, db.Scope{UserID: u.ID}, cols); err != nil {
		return err
	}
	c.Response().Header().Set("X-Robots-Tag", "noindex")
	return writeFeed(c, f)
}

func (s *Server) feedTokenRegenerate(c echo.Context) error {
	if err := s.store.SetFeedToken(c.Request().Context(), currentUser(c).ID, NewToken()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs(""))
}
