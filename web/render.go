package web

import (
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/source"
	"tidings/templates"
)

// pageNames lists every page template; each is parsed with the layout and
// the partials into its own set so that pages' {{define "content"}} blocks
// never collide.
var pageNames = []string{
	"landing", "signup", "signin", "dashboard", "add", "discovery", "site",
	"collection", "admin", "import", "import_preview", "import_result", "error", "confirm", "check", "settings", "message", "tokens",
	"change", "mailbox",
}

// parsePages parses every page; now is the clock relative times are
// told by.
func parsePages(fsys fs.FS, now func() time.Time) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"rfc3339": func(t any) string { return fmtTime(t, time.RFC3339) },
		"human":   func(t any) string { return fmtTime(t, "2 Jan 2006 15:04 UTC") },
		"ago": func(t any) string {
			if v, ok := timeOf(t); ok {
				return relTime(v, now())
			}
			return ""
		},
		"plural":  plural,
		"problem": newProblem,
		"join":    strings.Join,
		// How tidings follows a collection, as its source's registration
		// says.
		"source": func(c db.Collection) string { return source.Describe(c.Protocol, c.Watched) },
	}
	pages := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(fsys, "layout.html", "parts.html", "changes.html", name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: parse template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

func fmtTime(t any, layout string) string {
	switch v := t.(type) {
	case time.Time:
		return v.UTC().Format(layout)
	case *time.Time:
		if v != nil {
			return v.UTC().Format(layout)
		}
	}
	return ""
}

// pageData is what every page's template gets: the layout's needs, and the
// page's own data in Data.
type pageData struct {
	Title   string
	Base    string // the base URL, ending in "/"
	User    *db.User
	CSRF    string
	Refresh int // seconds; a pending page reloads itself without JavaScript
	// Notice says what the action that led here did.
	Notice     string
	SignupOpen bool
	// Registration is who may sign up (an accounts.Registration mode),
	// which every page that speaks of accounts says the same way.
	Registration string
	// Settings: this tidings has a settings page (notifications).
	Settings bool
	// Mailbox: this tidings is the demo, with a mailbox page.
	Mailbox bool
	Data    any
}

// render writes a page with status code.
func (s *Server) render(c echo.Context, code int, page, title string, data any) error {
	pd := pageData{Title: title, Base: s.base.String(), User: currentUser(c), Data: data, SignupOpen: s.signupOpen(), Registration: s.opts.Registration,
		Settings: s.opts.Notify != nil, Mailbox: s.opts.Mailbox != nil}
	pd.Notice = doneNotice[c.QueryParam("done")]
	pd.CSRF, _ = c.Get("csrf").(string)
	if r, ok := data.(interface{ refresh() int }); ok {
		pd.Refresh = r.refresh()
	}
	var buf strings.Builder
	if err := s.pages[page].ExecuteTemplate(&buf, "layout", pd); err != nil {
		return err
	}
	return c.HTML(code, buf.String())
}

// doneNotice is what each action says it did, by the code its redirect
// carries: fixed sentences, so that a link cannot make tidings say
// anything else.
var doneNotice = map[string]string{
	"feed-address":  "Your feed has a new address, below. The old one no longer works: give the new one to your feed reader.",
	"invite":        "A new invite link is at the top of the list. Send it to the person it is for; it works once.",
	"dismissed":     "Dismissed.",
	"signed-out":    "You are signed out.",
	"settings":      "Saved.",
	"token-revoked": "Revoked: the token no longer opens anything.",
	"email-sent":    "A confirmation link is on its way to that address: digests go there once you follow it.",
	"push-added":    "Added. It will be told of the next harvest that changes what it is for.",
	"push-removed":  "Removed.",
	"secret":        "Saved the webhook secret.",
}

// static serves the UI's stylesheet and script from the embedded files.
func static(name, contentType string) echo.HandlerFunc {
	return func(c echo.Context) error {
		body, err := templates.FS.ReadFile(name)
		if err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "public, max-age=3600")
		return c.Blob(http.StatusOK, contentType, body)
	}
}
