// Package web serves tidings over HTTP: the feeds and the pages.
package web

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"tidings/db"
	"tidings/templates"
)

// Options configure a Server.
type Options struct {
	BaseURL     string // public URL of this tidings, ending in "/"
	FeedEntries int    // entries per feed; 0 = DefaultFeedEntries
	Logger      *slog.Logger
}

// DefaultFeedEntries is how many entries a feed carries.
const DefaultFeedEntries = 50

// Server holds the handlers' dependencies.
type Server struct {
	store *db.DB
	opts  Options
	base  *url.URL
	pages map[string]*template.Template
	echo  *echo.Echo
}

// New builds the server and its routes.
func New(store *db.DB, o Options) (*Server, error) {
	if o.FeedEntries <= 0 {
		o.FeedEntries = DefaultFeedEntries
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	base, err := url.Parse(o.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("web: base URL %q: %w", o.BaseURL, err)
	}
	pages, err := parsePages(templates.FS)
	if err != nil {
		return nil, err
	}
	s := &Server{store: store, opts: o, base: base, pages: pages, echo: echo.New()}
	s.routes()
	return s, nil
}

// Handler returns the server as an http.Handler.
func (s *Server) Handler() http.Handler { return s.echo }

func (s *Server) routes() {
	e := s.echo
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = echo.ExtractIPDirect()
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.Recover())
	e.Use(middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection: "", ContentTypeNosniff: "nosniff", XFrameOptions: "DENY",
		ContentSecurityPolicy: "default-src 'self'; style-src 'self' 'unsafe-inline'",
		ReferrerPolicy:        "same-origin",
	}))
	e.GET("/", s.index)
	e.GET("/feeds/:file", s.collectionFeed)
	e.GET("/sites/:file", s.siteFeed)
}

func (s *Server) errorHandler(err error, c echo.Context) {
	code, msg := http.StatusInternalServerError, "Something went wrong on our side."
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code = he.Code
		msg = fmt.Sprint(he.Message)
	}
	if code >= 500 {
		s.opts.Logger.Error("request failed", "path", c.Request().URL.Path, "error", err)
	}
	if !c.Response().Committed {
		c.String(code, msg+"\n")
	}
}

// parsePages makes one template set per page, layout included, so that
// pages' {{define "content"}} blocks never collide.
func parsePages(fsys fs.FS) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"rfc3339": func(t *time.Time) string { return t.UTC().Format(time.RFC3339) },
		"human":   func(t *time.Time) string { return t.UTC().Format("2 Jan 2006 15:04 UTC") },
	}
	pages := map[string]*template.Template{}
	for _, name := range []string{"index"} {
		t, err := template.New(name).Funcs(funcs).ParseFS(fsys, "layout.html", name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: parse template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

func (s *Server) render(c echo.Context, page string, data any) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(http.StatusOK)
	return s.pages[page].ExecuteTemplate(c.Response(), "layout", data)
}

// abs turns a path relative to the base URL into an absolute URL.
func (s *Server) abs(path string) string {
	return s.base.JoinPath(path).String()
}

// CollectionFeedPath is a collection's Atom feed, relative to the base URL.
func CollectionFeedPath(id int64) string { return fmt.Sprintf("feeds/%d.atom", id) }

// SiteFeedPath is a site's merged Atom feed, relative to the base URL.
func SiteFeedPath(id int64) string { return fmt.Sprintf("sites/%d.atom", id) }

// Serve runs the HTTP server on ln until ctx ends, then shuts down
// gracefully.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
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
