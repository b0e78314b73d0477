package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/accounts"
)

// CSRF tokens. A signed-in browser's token is derived from its session
// token, which only that browser holds (HttpOnly; the database keeps a
// hash): a token read from a cookie someone planted, or from another
// session, is refused. Forms shown to anonymous browsers (sign in, sign
// up) are bound the same way to a random pre-session cookie instead:
// double submit, which a planted cookie defeats, but whoever can plant
// cookies can plant a session of their own as well, so those forms lose
// nothing that matters; the token still stops a plain cross-site post.
// No server secret is needed, so every serve process sharing a database
// accepts every other's forms, across restarts.
const (
	csrfCookie   = "tidings_csrf" // the pre-session cookie
	csrfField    = "csrf"         // the form field
	csrfContext  = "csrf"         // the context key render reads
	csrfLifetime = 24 * time.Hour
	csrfMaxKey   = 128 // longer pre-session values are replaced, not hashed
)

// csrfLabel keeps these tokens apart from any other use of a session token.
var csrfLabel = []byte("tidings csrf token v1")

// csrf checks the token of every state-changing request and hands the
// token for the page's forms to render. It runs after loadUser.
func (s *Server) csrf(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		key := s.csrfKey(c)
		want := csrfToken(key)
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		default:
			if c.Request().Header.Get("Sec-Fetch-Site") == "cross-site" {
				return s.csrfError(nil, c)
			}
			got := c.FormValue(csrfField)
			if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
				return s.csrfError(nil, c)
			}
		}
		c.Set(csrfContext, want)
		// The page carries a token bound to this browser's cookies.
		c.Response().Header().Add(echo.HeaderVary, echo.HeaderCookie)
		return next(c)
	}
}

// csrfKey is what the token is derived from: the session token of a
// signed-in browser, or else its pre-session cookie, set if missing.
func (s *Server) csrfKey(c echo.Context) string {
	if currentUser(c) != nil {
		if ck, err := c.Cookie(sessionCookie); err == nil && ck.Value != "" {
			return ck.Value
		}
	}
	if ck, err := c.Cookie(csrfCookie); err == nil && ck.Value != "" && len(ck.Value) <= csrfMaxKey {
		c.SetCookie(s.cookie(csrfCookie, ck.Value, time.Now().Add(csrfLifetime)))
		return ck.Value
	}
	v := accounts.NewToken()
	c.SetCookie(s.cookie(csrfCookie, v, time.Now().Add(csrfLifetime)))
	return v
}

// csrfToken derives the form token from key.
func csrfToken(key string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write(csrfLabel)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
