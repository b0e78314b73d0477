package web

import (
	"errors"
	"net/http"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"tidings/accounts"
	"tidings/db"
)

type signupData struct {
	First  bool   // no account exists yet: this one becomes admin
	Closed string // why signing up is not possible, when it is not
	Invite string
	Name   string
	Errors map[string]string
}

// signupState says whether a sign-up with this invite token may proceed.
func (s *Server) signupState(c echo.Context, invite string) (signupData, error) {
	ctx := c.Request().Context()
	n, err := s.store.CountUsers(ctx)
	if err != nil {
		return signupData{}, err
	}
	d := signupData{First: n == 0, Invite: invite, Errors: map[string]string{}}
	switch {
	case s.opts.Registration == accounts.RegistrationClosed:
		d.Closed = "Registration is closed. The operator of this tidings creates accounts with: tidings user add NAME"
	case s.opts.Registration == accounts.RegistrationOpen || n == 0:
	case invite == "":
		d.Closed = "Signing up needs an invite link. Ask the admin of this tidings for one."
	default:
		ok, err := s.store.InviteValid(ctx, invite, s.now())
		if err != nil {
			return d, err
		}
		if !ok {
			d.Closed = "This invite link is not valid: it was used already, has expired, or was mistyped."
		}
	}
	return d, nil
}

func (s *Server) signupForm(c echo.Context) error {
	d, err := s.signupState(c, c.QueryParam("invite"))
	if err != nil {
		return err
	}
	code := http.StatusOK
	if d.Closed != "" {
		code = http.StatusForbidden
	}
	return s.render(c, code, "signup", "Sign up", d)
}

func (s *Server) signup(c echo.Context) error {
	d, err := s.signupState(c, c.FormValue("invite"))
	if err != nil {
		return err
	}
	if d.Closed != "" {
		return s.render(c, http.StatusForbidden, "signup", "Sign up", d)
	}
	d.Name = c.FormValue("name")
	if msg := accounts.ValidateName(d.Name); msg != "" {
		d.Errors["name"] = msg
	}
	hash, err := accounts.HashPassword(c.FormValue("password"))
	if err != nil {
		d.Errors["password"] = capitalize(err.Error()) + "."
	}
	if len(d.Errors) > 0 {
		return s.render(c, http.StatusUnprocessableEntity, "signup", "Sign up", d)
	}
	var u db.User
	ctx := c.Request().Context()
	switch {
	case s.opts.Registration == accounts.RegistrationOpen:
		u, err = s.store.CreateUser(ctx, d.Name, hash, accounts.NewToken(), "")
	case d.First:
		u, err = s.store.CreateFirstUser(ctx, d.Name, hash, accounts.NewToken())
	default:
		u, err = s.store.CreateUser(ctx, d.Name, hash, accounts.NewToken(), d.Invite)
	}
	switch {
	case errors.Is(err, db.ErrAlreadyExists):
		d.Errors["name"] = "This name is taken. Choose another."
		return s.render(c, http.StatusUnprocessableEntity, "signup", "Sign up", d)
	case errors.Is(err, db.ErrInvalidInvite):
		d.Closed = "This invite link is not valid any more, or another account was created first: ask the admin for an invite link."
		return s.render(c, http.StatusForbidden, "signup", "Sign up", d)
	case err != nil:
		return err
	}
	if err := s.startSession(c, u); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs(""))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
