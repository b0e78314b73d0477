package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/metrics"
)

// countFeed counts the requests of one kind of feed by the status answered.
func countFeed(m *metrics.Metrics, kind string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			err := next(c)
			code := c.Response().Status
			if err != nil && !c.Response().Committed {
				code = http.StatusInternalServerError
				if he := (*echo.HTTPError)(nil); errors.As(err, &he) {
					code = he.Code
				}
			}
			m.FeedAnswered(kind, code)
			return err
		}
	}
}

// feedMiddleware is what the route of one kind of feed runs through.
func (s *Server) feedMiddleware(kind string) []echo.MiddlewareFunc {
	if s.opts.Metrics == nil {
		return nil
	}
	return []echo.MiddlewareFunc{countFeed(s.opts.Metrics, kind)}
}

// metrics answers /metrics in Prometheus' text format, behind the bearer
// token when one is set. The schedule gauges are read from the database
// now, so they hold however many processes harvest.
func (s *Server) metrics(c echo.Context) error {
	if tok := s.opts.MetricsToken; tok != "" && !bearerIs(c.Request().Header.Get("Authorization"), tok) {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="tidings metrics"`)
		return echo.NewHTTPError(http.StatusUnauthorized, "The metrics need the token set with --metrics-token, sent as Authorization: Bearer <token>.")
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
	defer cancel()
	now := s.now()
	sched, err := s.store.Schedule(ctx, now, now.Add(-metrics.OverdueAfter))
	if err != nil {
		return err
	}
	m := s.opts.Metrics
	m.SetSchedule(sched)
	c.Response().Header().Set("Cache-Control", "no-store")
	m.Handler().ServeHTTP(c.Response(), c.Request())
	return nil
}

// bearerIs tells whether an Authorization header carries token, in
// constant time.
func bearerIs(header, token string) bool {
	scheme, got, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
