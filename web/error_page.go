package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
)

type errorData struct {
	Code    int
	Message string
	// Next are the ways on from here, most likely first.
	Next []link
}

type link struct {
	Text, URL string
}

// errorTitles head the error pages.
var errorTitles = map[int]string{
	http.StatusNotFound:              "Page not found",
	http.StatusForbidden:             "Not allowed",
	http.StatusTooManyRequests:       "Too many attempts",
	http.StatusMethodNotAllowed:      "Not a page",
	http.StatusRequestEntityTooLarge: "Too large",
	http.StatusUnauthorized:          "Sign-in needed",
	http.StatusServiceUnavailable:    "Not available just now",
}

// unavailableRetry is how long a person or a feed reader is asked to wait
// while the database is unavailable: about what a database restart takes.
const unavailableRetry = time.Minute

// unavailableMessage is what a request is told while the database is
// unavailable.
const unavailableMessage = "tidings cannot reach its database just now, so it cannot answer this. Try again in a minute."

func (s *Server) errorHandler(err error, c echo.Context) {
	if isAPI(c) {
		s.writeProblem(err, c)
		return
	}
	code, msg := http.StatusInternalServerError, "Something went wrong on our side."
	var he *echo.HTTPError
	unavailable := db.IsUnavailable(err)
	switch {
	case unavailable:
		// An outage of the database, not a fault of this request: the
		// answer says when to come back rather than that something broke.
		code, msg = http.StatusServiceUnavailable, unavailableMessage
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(unavailableRetry.Seconds())))
		s.opts.Logger.Warn("request refused: the database is unavailable", "path", c.Request().URL.Path, "error", err)
	case errors.As(err, &he):
		code = he.Code
		msg = fmt.Sprint(he.Message)
		if code == http.StatusNotFound && msg == http.StatusText(http.StatusNotFound) {
			msg = "There is nothing at this address. It may have been mistyped, or the page has moved."
		}
	}
	if code >= 500 && !unavailable {
		s.opts.Logger.Error("request failed", "path", c.Request().URL.Path, "error", err)
	}
	if c.Response().Committed {
		return
	}
	if !s.isPage(c) {
		c.String(code, msg+"\n")
		return
	}
	if currentUser(c) == nil {
		// Unknown paths never ran the page middleware; the navigation
		// should still know who is there. A failure here is not worth a
		// second error page.
		_ = s.setSessionUser(c)
	}
	title := errorTitles[code]
	if title == "" {
		title = http.StatusText(code)
		if code >= 500 {
			title = "Something went wrong"
		}
	}
	if rerr := s.render(c, code, "error", title, errorData{Code: code, Message: msg, Next: s.nextSteps(c, code)}); rerr != nil {
		s.opts.Logger.Error("render error page", "path", c.Request().URL.Path, "error", rerr)
		c.String(code, msg+"\n")
	}
}

// isPage tells a request for a page, answered with an HTML page even when
// it fails, from one for a feed, a file or a probe, answered in plain text.
func (s *Server) isPage(c echo.Context) bool {
	p := c.Request().URL.Path
	for _, prefix := range []string{"/feeds/", "/sites/", "/u/", "/static/", "/healthz", "/metrics"} {
		if strings.HasPrefix(p, prefix) {
			return false
		}
	}
	return true
}

// nextSteps offers a way on from an error.
func (s *Server) nextSteps(c echo.Context, code int) []link {
	var out []link
	switch code {
	case http.StatusForbidden:
		if ref := c.Request().Referer(); strings.HasPrefix(ref, s.base.String()) {
			out = append(out, link{"Back to the form", ref})
		}
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		out = append(out, link{"Try again in a minute", s.abs(strings.TrimPrefix(c.Request().URL.Path, "/"))})
	}
	if currentUser(c) != nil {
		return append(out, link{"Your sites", s.abs("")}, link{"Add a site", s.abs("add")})
	}
	return append(out, link{"Sign in", s.abs("signin")}, link{"Home", s.abs("")})
}
