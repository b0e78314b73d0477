package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/accounts"
	"tidings/db"
)

const (
	sessionCookie   = "tidings_session"
	sessionLifetime = 30 * 24 * time.Hour
	userKey         = "user"
)

// startSession signs the user in on this browser.
func (s *Server) startSession(c echo.Context, u db.User) error {
	token := accounts.NewToken()
	expires := time.Now().Add(sessionLifetime)
	if err := s.store.CreateSession(c.Request().Context(), accounts.HashToken(token), u.ID, expires); err != nil {
		return err
	}
	c.SetCookie(s.cookie(sessionCookie, token, expires))
	return nil
}

func (s *Server) endSession(c echo.Context) error {
	if ck, err := c.Cookie(sessionCookie); err == nil {
		if err := s.store.DeleteSession(c.Request().Context(), accounts.HashToken(ck.Value)); err != nil {
			return err
		}
	}
	c.SetCookie(s.cookie(sessionCookie, "", time.Unix(0, 0)))
	return nil
}

func (s *Server) cookie(name, value string, expires time.Time) *http.Cookie {
	return &http.Cookie{
		Name: name, Value: value, Path: s.cookiePath(), Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.base.Scheme == "https",
	}
}

func (s *Server) cookiePath() string {
	if s.base.Path == "" {
		return "/"
	}
	return s.base.Path
}

// loadUser puts the signed-in user, if any, into the context.
func (s *Server) loadUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.setSessionUser(c); err != nil {
			return err
		}
		return next(c)
	}
}

// setSessionUser puts the user the session cookie names, if any, into the
// context.
func (s *Server) setSessionUser(c echo.Context) error {
	ck, err := c.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return nil
	}
	u, err := s.store.SessionUser(c.Request().Context(), accounts.HashToken(ck.Value), time.Now())
	if err == nil {
		c.Set(userKey, &u)
	} else if !errors.Is(err, db.ErrNotFound) {
		return err
	}
	return nil
}

func currentUser(c echo.Context) *db.User {
	u, _ := c.Get(userKey).(*db.User)
	return u
}

// requireUser sends people who are not signed in to the sign-in page,
// remembering where they were going.
func (s *Server) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if currentUser(c) == nil {
			// Relative to the base URL: the prefix, if any, is added back by
			// safeNext.
			next := c.Request().URL.RequestURI()
			return c.Redirect(http.StatusSeeOther, s.abs("signin")+"?next="+url.QueryEscape(next))
		}
		return next(c)
	}
}

func (s *Server) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return s.requireUser(func(c echo.Context) error {
		if !currentUser(c).Admin {
			return echo.NewHTTPError(http.StatusForbidden, "Only an admin may see this page.")
		}
		return next(c)
	})
}

// safeNext keeps a post-sign-in redirect on this site: next is a path
// relative to the base URL, which may carry a prefix.
func (s *Server) safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\t\r\n") {
		return s.abs("")
	}
	root := s.base.String()
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	return root + strings.TrimPrefix(next, "/")
}
