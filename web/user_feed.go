package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"tidings/accounts"
	"tidings/db"
	"tidings/feeds"
)

// UserFeedPath is a user's aggregate Atom feed, relative to the base URL;
// the token is its only protection. The same path ending in .rss or .json
// is the feed in those formats.
func UserFeedPath(token string) string { return userFeedBase(token) + ".atom" }

func userFeedBase(token string) string { return "u/" + token }

// userFeed serves everything a user follows. An unknown or replaced token
// is a 404, the same as a feed that never existed.
func (s *Server) userFeed(c echo.Context) error {
	token, format, err := feedFile(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	u, err := s.store.UserByFeedToken(ctx, token)
	if errors.Is(err, db.ErrNotFound) {
		return errNoFeed
	}
	if err != nil {
		return err
	}
	c.Response().Header()["X-Robots-Tag"] = noindex
	return s.serveFeed(c, gen, &feedSpec{
		scope:  db.Scope{UserID: u.ID},
		path:   userFeedBase(token),
		format: format,
		meta: feeds.Feed{
			ID:           s.tag(u.CreatedAt, fmt.Sprintf("user/%d", u.ID)),
			Title:        "Everything " + u.Name + " follows",
			AlternateURL: s.abs(""),
		},
		created: u.CreatedAt,
		collections: func() (map[int64]db.Collection, error) {
			return s.collectionMap(c, db.CollectionFilter{})
		},
	})
}

func (s *Server) feedTokenRegenerate(c echo.Context) error {
	if err := s.store.SetFeedToken(c.Request().Context(), currentUser(c).ID, accounts.NewToken()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs(""))
}
