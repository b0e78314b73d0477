package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/accounts"
	"tidings/db"
)

type signinData struct {
	Name       string
	Next       string
	Error      string
	SignupOpen bool
}

func (s *Server) signupOpen() bool { return s.opts.Registration == accounts.RegistrationOpen }

func (s *Server) signinForm(c echo.Context) error {
	if currentUser(c) != nil {
		return c.Redirect(http.StatusSeeOther, s.safeNext(c.QueryParam("next")))
	}
	return s.render(c, http.StatusOK, "signin", "Sign in", signinData{Next: c.QueryParam("next"), SignupOpen: s.signupOpen()})
}

func (s *Server) signin(c echo.Context) error {
	d := signinData{Name: c.FormValue("name"), Next: c.FormValue("next"), SignupOpen: s.signupOpen()}
	u, err := s.store.UserByName(c.Request().Context(), d.Name)
	if err != nil && !errors.Is(err, db.ErrNotFound) {
		return err
	}
	if !accounts.CheckPassword(u.PasswordHash, c.FormValue("password")) {
		d.Error = "That name and password do not match an account."
		return s.render(c, http.StatusUnauthorized, "signin", "Sign in", d)
	}
	if err := s.startSession(c, u); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.safeNext(d.Next))
}

func (s *Server) signout(c echo.Context) error {
	if err := s.endSession(c); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs("")+"?done=signed-out")
}

func (s *Server) now() time.Time { return time.Now() }
