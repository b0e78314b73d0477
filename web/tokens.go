package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"tidings/accounts"
	"tidings/db"
)

type tokensData struct {
	Tokens []db.APIToken
	// New is the token just made, shown this once.
	New   *newToken
	Error string
}

type newToken struct{ Name, Token string }

// maxTokenName bounds a token's name: a word or two to tell it apart.
const maxTokenName = 60

func (s *Server) tokensPage(c echo.Context) error {
	return s.showTokens(c, http.StatusOK, tokensData{})
}

func (s *Server) showTokens(c echo.Context, code int, d tokensData) error {
	var err error
	if d.Tokens, err = s.store.APITokens(c.Request().Context(), currentUser(c).ID); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return s.render(c, code, "tokens", "API tokens", d)
}

// tokenCreate makes a token and shows it once, in the answer to the
// POST itself: it is never in an address, a redirect or the database.
func (s *Server) tokenCreate(c echo.Context) error {
	name := strings.TrimSpace(c.FormValue("name"))
	switch {
	case name == "":
		return s.showTokens(c, http.StatusUnprocessableEntity, tokensData{Error: "Give the token a name, after what will use it."})
	case utf8.RuneCountInString(name) > maxTokenName:
		return s.showTokens(c, http.StatusUnprocessableEntity, tokensData{Error: fmt.Sprintf("A token's name has at most %d characters.", maxTokenName)})
	}
	token, hash := accounts.NewAPIToken()
	_, err := s.store.CreateAPIToken(c.Request().Context(), currentUser(c).ID, name, hash, time.Now())
	if errors.Is(err, db.ErrTooManyTokens) {
		return s.showTokens(c, http.StatusUnprocessableEntity, tokensData{
			Error: fmt.Sprintf("You have %d tokens, the most there may be: revoke one you no longer use first.", db.MaxAPITokens)})
	}
	if err != nil {
		return err
	}
	return s.showTokens(c, http.StatusOK, tokensData{New: &newToken{Name: name, Token: token}})
}

func (s *Server) tokenRevoke(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err == nil {
		err = s.store.DeleteAPIToken(c.Request().Context(), currentUser(c).ID, id)
	}
	if err != nil && !errors.Is(err, db.ErrNotFound) {
		return err
	}
	if err != nil {
		return echo.NewHTTPError(http.StatusNotFound, "You have no such token: it may have been revoked already.")
	}
	return c.Redirect(http.StatusSeeOther, s.abs("tokens")+"?done=token-revoked")
}
