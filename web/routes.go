package web

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"tidings/metrics"
)

// routes is the route table: every page and action of tidings.
func (s *Server) routes() {
	e := s.echo
	e.HideBanner, e.HidePort = true, true
	// Not behind a proxy by default: the peer address is the client. Trusting
	// X-Forwarded-For here would let anyone dodge the rate limits.
	e.IPExtractor = echo.ExtractIPDirect()
	if len(s.opts.TrustedProxies) > 0 {
		trust := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
		for _, n := range s.opts.TrustedProxies {
			trust = append(trust, echo.TrustIPRange(n))
		}
		e.IPExtractor = echo.ExtractIPFromXFFHeader(trust...)
	}
	e.HTTPErrorHandler = s.errorHandler
	e.Pre(s.stripBasePath)
	e.Use(middleware.Recover())
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			setSecurityHeaders(c.Response().Header())
			return next(c)
		}
	})

	// Feeds are public: readers cannot sign in.
	feed := []string{http.MethodGet, http.MethodHead}
	e.Match(feed, "/feeds/:file", s.collectionFeed, s.feedMiddleware(metrics.FeedCollection)...)
	e.Match(feed, "/sites/:file", s.siteFeed, s.feedMiddleware(metrics.FeedSite)...)
	e.Match(feed, "/u/:file", s.userFeed, s.feedMiddleware(metrics.FeedUser)...)
	e.GET("/static/style.css", static("style.css", "text/css; charset=utf-8"))
	e.GET("/static/copy.js", static("copy.js", "text/javascript; charset=utf-8"))
	e.GET("/healthz", s.health)
	if s.opts.Metrics != nil {
		e.GET("/metrics", s.metrics)
	}

	limited := middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Store: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(s.opts.AuthRate / 60), Burst: max(1, int(s.opts.AuthRate)), ExpiresIn: 10 * time.Minute,
		}),
		IdentifierExtractor: func(c echo.Context) (string, error) { return clientKey(c.RealIP()), nil },
		DenyHandler: func(c echo.Context, _ string, _ error) error {
			return echo.NewHTTPError(http.StatusTooManyRequests, "Too many attempts from your address. Wait a minute and try again.")
		},
	})
	// Adding and importing start work that every user's discoveries share:
	// each user has a rate of their own, whatever address they come from.
	perUser := func(perSecond float64, burst float64, msg string) echo.MiddlewareFunc {
		return middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
			Store: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
				Rate: rate.Limit(perSecond), Burst: max(1, int(burst)), ExpiresIn: time.Hour,
			}),
			IdentifierExtractor: func(c echo.Context) (string, error) { return strconv.FormatInt(currentUser(c).ID, 10), nil },
			DenyHandler: func(c echo.Context, _ string, _ error) error {
				return echo.NewHTTPError(http.StatusTooManyRequests, msg)
			},
		})
	}
	addLimited := perUser(s.opts.AddRate/60, s.opts.AddRate,
		"You are adding sites faster than tidings allows. Wait a minute and try again.")
	importLimited := perUser(s.opts.ImportRate/3600, s.opts.ImportRate,
		fmt.Sprintf("You have imported several files just now. Wait %d minutes and try again.", int(math.Ceil(60/s.opts.ImportRate))))
	s.apiRoutes(addLimited, importLimited)
	// Middleware is attached per route, not per group: a group's middleware
	// also runs for unknown paths, which must stay plain 404s.
	page := func(method, path string, h echo.HandlerFunc, extra ...echo.MiddlewareFunc) {
		var mw []echo.MiddlewareFunc
		if method == http.MethodPost {
			// Before CSRF, which reads the form: forms are small, and an
			// import's upload is bounded a little above what it accepts.
			limit := "64K"
			if path == "/import" {
				limit = "33M"
			}
			mw = append(mw, middleware.BodyLimit(limit))
		}
		mw = append(mw, s.loadUser, s.csrf) // bound to the session (csrf.go)
		e.Add(method, path, h, append(mw, extra...)...)
	}
	user := s.requireUser
	admin := s.requireAdmin

	page(http.MethodGet, "/", s.dashboard)
	page(http.MethodGet, "/signup", s.signupForm)
	page(http.MethodPost, "/signup", s.signup, limited)
	page(http.MethodGet, "/signin", s.signinForm)
	page(http.MethodPost, "/signin", s.signin, limited)
	page(http.MethodPost, "/signout", s.signout)

	page(http.MethodGet, "/add", s.siteAddForm, user)
	page(http.MethodPost, "/add", s.siteAdd, user, addLimited)
	page(http.MethodGet, "/discoveries/:id", s.discoveryPage, user)
	page(http.MethodPost, "/discoveries/:id/dismiss", s.discoveryDismiss, user)
	// Site and collection pages are public, as their feeds are: a reader
	// given a page's address finds the feeds in it.
	page(http.MethodGet, "/site/:id", s.sitePage)
	page(http.MethodPost, "/site/:id/harvest", s.siteHarvest, user)
	page(http.MethodPost, "/site/:id/ignore", s.siteIgnore, user)
	page(http.MethodPost, "/site/:id/ignore/:rule/remove", s.siteIgnoreRemove, user)
	page(http.MethodGet, "/site/:id/unfollow", s.unfollowConfirm, user)
	page(http.MethodPost, "/site/:id/unfollow", s.siteUnfollow, user)
	page(http.MethodGet, "/collection/:id", s.collectionPage)
	page(http.MethodGet, "/collection/:id/change/:change", s.changePage)
	page(http.MethodGet, "/feed-token", s.feedTokenConfirm, user)
	page(http.MethodPost, "/feed-token", s.feedTokenRegenerate, user)
	page(http.MethodGet, "/tokens", s.tokensPage, user)
	page(http.MethodPost, "/tokens", s.tokenCreate, user)
	page(http.MethodPost, "/tokens/:id/revoke", s.tokenRevoke, user)
	page(http.MethodGet, "/opml", s.opmlExport, user)
	page(http.MethodGet, "/export", s.exportAll, user)
	page(http.MethodGet, "/import", s.opmlImportForm, user)
	page(http.MethodPost, "/import", s.opmlImport, user, importLimited)
	page(http.MethodGet, "/imports/:id", s.opmlImportResult, user)

	// Public: a site's owner needs no account to check it (check.go).
	s.checks = newCheckGate(checkRate, checkConcurrency, checkPatience)
	page(http.MethodGet, "/check", s.checkPage)

	if s.opts.Notify != nil {
		// At most a confirmation e-mail every few minutes, on average.
		emailLimited := perUser(12.0/3600, 6, "You have changed your e-mail settings several times just now. Wait a few minutes and try again.")
		page(http.MethodGet, "/settings", s.settingsPage, user)
		page(http.MethodPost, "/settings/email", s.settingsEmail, user, emailLimited)
		page(http.MethodPost, "/settings/push", s.settingsPushAdd, user)
		page(http.MethodPost, "/settings/push/:id/delete", s.settingsPushRemove, user)
		page(http.MethodPost, "/settings/secret", s.settingsSecret, user)
		// Links in e-mail work without signing in: their tokens are the
		// proof.
		// A GET only asks: mail scanners open links before people do.
		page(http.MethodGet, "/notify/confirm", s.emailConfirmAsk)
		page(http.MethodPost, "/notify/confirm", s.emailConfirm)
		page(http.MethodGet, "/unsubscribe", s.unsubscribeConfirm)
		// RFC 8058's one-click POST comes from a mail client, with no
		// cookie and so no CSRF token: the signed token stands for it.
		e.POST("/unsubscribe", s.unsubscribe, middleware.BodyLimit("64K"), s.loadUser)
	}

	if s.opts.Mailbox != nil {
		page(http.MethodGet, "/demo/mailbox", s.mailboxPage, user)
		page(http.MethodGet, "/demo/mailbox/:id", s.mailboxHTML, user)
	}

	page(http.MethodGet, "/admin", s.adminPage, admin)
	page(http.MethodPost, "/admin/invites", s.inviteCreate, admin)
}

func (s *Server) csrfError(err error, c echo.Context) error {
	return echo.NewHTTPError(http.StatusForbidden, "This form has expired or did not come from tidings. Go back, reload the page and try again.")
}

// stripBasePath lets tidings answer behind a proxy that passes a path
// prefix through (--base-url https://example.org/tidings/ with nginx's
// proxy_pass without a URI): /tidings/feeds/1.atom is routed as
// /feeds/1.atom. A proxy that strips the prefix works as well.
func (s *Server) stripBasePath(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if p := s.routedPath(r.URL.Path); p != r.URL.Path {
			r.URL.Path = p
			r.URL.RawPath = ""
		}
		return next(c)
	}
}

// routedPath is a request's path without the base URL's path prefix, if
// it carries it.
func (s *Server) routedPath(path string) string {
	prefix := strings.TrimSuffix(s.base.Path, "/")
	if prefix != "" && (path == prefix || strings.HasPrefix(path, prefix+"/")) {
		return "/" + strings.TrimPrefix(strings.TrimPrefix(path, prefix), "/")
	}
	return path
}
