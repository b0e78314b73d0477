package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"tidings/follow"
	"tidings/sitecheck"
)

// Checker checks a site for its owner (sitecheck.Checker).
type Checker interface {
	Check(ctx context.Context, rawURL string, o sitecheck.Options) (*sitecheck.Report, error)
}

// Bounds of the public check page. It needs no account, so each client
// (an address, or an IPv6 /64) may start a few checks a minute, runs one
// at a time, and only a couple run at once, whoever asks: a check fetches
// up to webCheck.MaxDocuments documents. A check waits for its turn only
// so long that, with the check's own timeout, the answer still comes
// within the server's write timeout.
const (
	checkRate        = 3 // per client and minute
	checkConcurrency = 2
	checkPatience    = 15 * time.Second
	checkMaxWaiting  = 32
)

// webCheck bounds one check started from the page: its answer must come
// well within the server's write timeout.
var webCheck = sitecheck.Options{Timeout: 40 * time.Second, MaxDocuments: 100, PageFetches: 5, PreviewEntries: 5}

// checkGate holds the rate per client and the line of checks waiting to
// run.
type checkGate struct {
	rates *middleware.RateLimiterMemoryStore
	queue *checkQueue
}

func newCheckGate(perMinute float64, concurrent int, patience time.Duration) *checkGate {
	return &checkGate{
		rates: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(perMinute / 60), Burst: max(1, int(perMinute)), ExpiresIn: 10 * time.Minute,
		}),
		queue: newCheckQueue(concurrent, patience, checkMaxWaiting),
	}
}

type checkData struct {
	URL    string
	Error  string
	Report *sitecheck.Report
}

// checkPage shows the form, and with ?url= the check of that site, so that
// a result can be linked to.
func (s *Server) checkPage(c echo.Context) error {
	d := checkData{URL: strings.TrimSpace(c.QueryParam("url"))}
	if d.URL == "" {
		return s.render(c, http.StatusOK, "check", "Check a site", d)
	}
	rep, refused, err := s.gatedCheck(c, d.URL)
	switch {
	case refused != nil:
		if refused.retry {
			c.Response().Header().Set("Retry-After", "60")
		}
		d.Error = refused.msg
		return s.render(c, refused.status, "check", "Check a site", d)
	case errors.Is(err, context.Canceled):
		// Whoever asked has gone.
		return nil
	case err != nil:
		return err
	}
	d.Report = rep
	return s.render(c, http.StatusOK, "check", "Check of "+rep.Site, d)
}

// checkRefusal is why a check was not run, for a person: the page shows
// msg, the API answers it as a problem of code.
type checkRefusal struct {
	status int
	code   string
	msg    string
	retry  bool // worth asking again in a minute
}

// gatedCheck checks the site at rawURL for the client of c, within the
// limits every check keeps, the page's and the API's alike: a rate per
// client (an address, or an IPv6 /64), one check at a time for each, a
// few at once in all, and the address policy.
func (s *Server) gatedCheck(c echo.Context, rawURL string) (*sitecheck.Report, *checkRefusal, error) {
	ck := s.opts.Checker
	if ck == nil {
		return nil, &checkRefusal{status: http.StatusServiceUnavailable, code: "unavailable", msg: "This tidings cannot check sites."}, nil
	}
	ctx := c.Request().Context()
	root, err := follow.SiteRoot(rawURL)
	if err != nil {
		return nil, &checkRefusal{status: http.StatusUnprocessableEntity, code: "address_refused", msg: capitalize(err.Error()) + "."}, nil
	}
	// The rate is taken before the address is judged: judging it looks the
	// name up, and a refused address is a check asked for all the same.
	client := clientKey(c.RealIP())
	if allowed, _ := s.checks.rates.Allow(client); !allowed {
		return nil, &checkRefusal{status: http.StatusTooManyRequests, code: "too_many_requests", retry: true,
			msg: "You have checked several sites in the last minute. Wait a minute, then check again."}, nil
	}
	if err := s.follow.CheckAddress(ctx, root); err != nil {
		return nil, &checkRefusal{status: http.StatusUnprocessableEntity, code: "address_refused", msg: addressMessage(err)}, nil
	}
	release, err := s.checks.queue.acquire(ctx, client)
	switch {
	case errors.Is(err, context.Canceled):
		return nil, nil, err
	case errors.Is(err, errOwnCheckRunning):
		return nil, &checkRefusal{status: http.StatusServiceUnavailable, code: "wait", retry: true,
			msg: "Your other check is still running: tidings runs one at a time for each visitor. Wait for it to finish, then check again."}, nil
	case err != nil:
		return nil, &checkRefusal{status: http.StatusServiceUnavailable, code: "unavailable", retry: true,
			msg: "tidings is busy checking other sites. Try again in a minute."}, nil
	}
	defer release()
	o := webCheck
	// Whether a site is followed here is the followers' to know: a
	// stranger's check is not compared with what was stored of it.
	o.Private = currentUser(c) == nil
	rep, err := ck.Check(ctx, rawURL, o)
	var p *follow.Problem
	if errors.As(err, &p) {
		return nil, &checkRefusal{status: http.StatusUnprocessableEntity, code: "address_refused", msg: capitalize(p.Msg) + "."}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	s.opts.Logger.Info("checked site", "site", rep.Site, "followable", rep.Followable, "problems", len(rep.Problems),
		"documents", len(rep.Fetched)+rep.FetchedMore, "client", c.RealIP())
	return rep, nil, nil
}
