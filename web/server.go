// Package web serves tidings over HTTP: the feeds, as feedbuild builds
// them, cached and answered with validators, compression and 304s; the
// pages, sessions, CSRF and forms of the web UI; OPML import and export;
// /healthz and /metrics. It holds HTTP concerns only: the accounts,
// feedbuild, follow, opml and metrics packages hold the rules it applies.
package web

import (
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/accounts"
	"tidings/db"
	"tidings/feedbuild"
	"tidings/follow"
	"tidings/metrics"
	"tidings/notify"
	"tidings/templates"
)

// Options configure a Server.
type Options struct {
	BaseURL      string // public URL of this tidings, ending in "/"
	FeedEntries  int    // entries per feed page; 0 = feedbuild.DefaultFeedEntries
	Registration string // an accounts.Registration mode; invite by default
	Logger       *slog.Logger
	// Follow does what people ask of sites (follow, import, harvest
	// now, unfollow); the server runs its background work while it
	// serves. A server without one serves feeds and pages only.
	Follow *follow.Service
	// Checker answers the public check page; without one the page says
	// this tidings cannot check sites.
	Checker Checker
	// AuthRate is how many sign-in and sign-up attempts one IP may make per
	// minute; 0 = DefaultAuthRate.
	AuthRate float64
	// AddRate is how many sites one user may submit through /add per
	// minute; 0 = DefaultAddRate. ImportRate is how many OPML files one
	// user may import per hour; 0 = DefaultImportRate.
	AddRate    float64
	ImportRate float64
	// SchedulerHeartbeat, when the scheduler runs, returns when it last
	// ticked; /healthz fails when that is older than SchedulerStale.
	SchedulerHeartbeat func() time.Time
	// TrustedProxies are the networks whose X-Forwarded-For is believed,
	// for rate limits and logs; from anyone else it is ignored.
	TrustedProxies []*net.IPNet
	SchedulerStale time.Duration
	// HubURL, when set, is the WebSub hub every feed names (rel="hub").
	HubURL string
	// FailingAfter is how long a collection's harvests fail before its
	// feeds say so; 0 = feedbuild.DefaultFailingAfter.
	FailingAfter time.Duration
	// Metrics, when set, counts feed requests and answers /metrics;
	// MetricsToken, when set, is the bearer token /metrics then requires.
	Metrics      *metrics.Metrics
	MetricsToken string
	// Notify, when set, serves the settings page of e-mail digests and
	// pushes, and the links their messages carry.
	Notify *notify.Notifier
	// Mailbox, when set, lists the messages a mailbox of the demo's
	// received, newest first: the demo shows its e-mail and pushes at
	// /demo/mailbox.
	Mailbox func() []Mail
}

// Defaults of Options.
const (
	DefaultAuthRate = 10
	// A person adding sites by hand stays well under 20 a minute; an
	// import is one file of up to maxImportSites sites, and one every ten
	// minutes (after a burst of six) is plenty to retry a corrected file.
	DefaultAddRate    = 20
	DefaultImportRate = 6
)

// Server holds the handlers' dependencies.
type Server struct {
	store *db.DB
	opts  Options
	base  *url.URL
	pages map[string]*template.Template
	echo  *echo.Echo
	// follow does what people ask of sites.
	follow    *follow.Service
	feedCache *feedCache
	build     *feedbuild.Builder
	checks    *checkGate // the public check page's limits (check.go)
}

// New builds the server and its routes.
func New(store *db.DB, o Options) (*Server, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Registration == "" {
		o.Registration = accounts.RegistrationInvite
	}
	if o.AuthRate <= 0 {
		o.AuthRate = DefaultAuthRate
	}
	if o.AddRate <= 0 {
		o.AddRate = DefaultAddRate
	}
	if o.ImportRate <= 0 {
		o.ImportRate = DefaultImportRate
	}
	if o.SchedulerStale <= 0 {
		o.SchedulerStale = 10 * time.Minute
	}
	base, err := url.Parse(o.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("web: base URL %q: %w", o.BaseURL, err)
	}
	build, err := feedbuild.New(store, feedbuild.Options{
		BaseURL: o.BaseURL, FeedEntries: o.FeedEntries, FailingAfter: o.FailingAfter, HubURL: o.HubURL,
	})
	if err != nil {
		return nil, err
	}
	pages, err := parsePages(templates.FS, time.Now)
	if err != nil {
		return nil, err
	}
	s := &Server{store: store, opts: o, base: base, pages: pages, echo: echo.New(), follow: o.Follow, build: build}
	s.feedCache = newFeedCache(defaultFeedCacheBytes)
	s.routes()
	return s, nil
}

// Handler returns the server as an http.Handler.
func (s *Server) Handler() http.Handler { return s }

// abs turns a path relative to the base URL into an absolute URL.
func (s *Server) abs(path string) string {
	return s.base.JoinPath(path).String()
}

// Serve runs the HTTP server on ln until ctx ends, then shuts down
// gracefully.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
	}
	// The background work first: a discovery requested by the first
	// request must run under ctx, and be resumed only once.
	if s.follow != nil {
		s.follow.Start(ctx)
		defer s.follow.Wait()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("web: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shut)
}
