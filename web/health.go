package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// health answers /healthz: 200 when the database answers and the scheduler
// (if it runs) ticked lately, 503 otherwise, with one line per check so an
// operator sees which failed.
func (s *Server) health(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
	defer cancel()
	var lines []string
	ok := true
	if err := s.store.Ping(ctx); err != nil {
		ok = false
		lines = append(lines, "database: "+err.Error())
	} else {
		lines = append(lines, "database: ok")
	}
	switch {
	case s.opts.SchedulerHeartbeat == nil:
		lines = append(lines, "scheduler: off")
	default:
		last := s.opts.SchedulerHeartbeat()
		if age := s.now().Sub(last); last.IsZero() || age > s.opts.SchedulerStale {
			ok = false
			lines = append(lines, fmt.Sprintf("scheduler: stalled, last seen %s", last.UTC().Format(time.RFC3339)))
		} else {
			lines = append(lines, "scheduler: ok")
		}
	}
	code := http.StatusOK
	if !ok {
		code = http.StatusServiceUnavailable
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.String(code, strings.Join(lines, "\n")+"\n")
}
