package web

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"go.yaml.in/yaml/v3"
	"golang.org/x/time/rate"

	"tidings/accounts"
	"tidings/db"
	"tidings/imports"
)

// apiPrefix is where the JSON API is served, relative to the base URL.
const apiPrefix = "/api/v1"

// openAPIYAML is the API's OpenAPI document: the source of truth the
// handlers are held to (every test's traffic is checked against it).
//
//go:embed openapi.yaml
var openAPIYAML []byte

// openAPIJSON is the document as it is served: JSON, which every client
// generator reads.
var openAPIJSON = func() []byte {
	var doc any
	if err := yaml.Unmarshal(openAPIYAML, &doc); err != nil {
		panic("web: openapi.yaml: " + err.Error())
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic("web: openapi.yaml as JSON: " + err.Error())
	}
	return b
}()

// Bounds of the API.
const (
	// apiBodyLimit bounds a request's body: every body of this API is a
	// small object.
	apiBodyLimit = "16K"
	// DefaultAPIRate is how many calls a person's tokens together may make
	// a minute, with a burst of as many.
	DefaultAPIRate = 120
)

// apiRoutes adds the API's routes. Every call but the document's is made
// as the person a bearer token names; a session cookie is not read, so a
// page that a person has open cannot be made to call it (no CSRF token
// is needed, or taken). follows is the rate of adding sites the web
// form has, applied to the same people.
func (s *Server) apiRoutes(follows, imported echo.MiddlewareFunc) {
	e := s.echo
	e.GET(apiPrefix+"/openapi.json", func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "public, max-age=3600")
		return c.Blob(http.StatusOK, "application/json", openAPIJSON)
	})
	perPerson := middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Store: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(DefaultAPIRate / 60.0), Burst: DefaultAPIRate, ExpiresIn: 10 * time.Minute,
		}),
		IdentifierExtractor: func(c echo.Context) (string, error) { return strconv.FormatInt(currentUser(c).ID, 10), nil },
		DenyHandler: func(c echo.Context, _ string, _ error) error {
			return &apiProblem{status: http.StatusTooManyRequests, code: "too_many_requests", retryAfter: time.Second,
				detail: fmt.Sprintf("Your tokens made more than %d calls in a minute. Wait a little and call again.", DefaultAPIRate)}
		},
	})
	call := func(method, path string, h echo.HandlerFunc, extra ...echo.MiddlewareFunc) {
		mw := []echo.MiddlewareFunc{s.apiToken, perPerson}
		if method == http.MethodPost {
			limit := apiBodyLimit
			if path == "/import" {
				limit = fmt.Sprintf("%dB", apiImportLimit)
			}
			mw = append(mw, middleware.BodyLimit(limit))
		}
		e.Add(method, apiPrefix+path, h, append(mw, extra...)...)
	}
	// A server without the follow service serves what is stored only.
	follower := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if s.follow == nil {
				return &apiProblem{status: http.StatusServiceUnavailable, code: "unavailable", detail: "This tidings serves feeds only: it follows no sites for people."}
			}
			return next(c)
		}
	}
	call(http.MethodGet, "/me", s.apiMe)
	call(http.MethodGet, "/sites", s.apiSites)
	call(http.MethodPost, "/sites", s.apiFollow, follower, follows)
	call(http.MethodGet, "/sites/:site", s.apiSite)
	call(http.MethodDelete, "/sites/:site", s.apiUnfollow, follower)
	call(http.MethodPost, "/sites/:site/harvest", s.apiHarvest, follower)
	call(http.MethodGet, "/discoveries/:discovery", s.apiDiscovery)
	call(http.MethodGet, "/lookup", s.apiLookup, follower)
	call(http.MethodGet, "/check", s.apiCheck, follower)
	call(http.MethodGet, "/changes", s.apiChanges)
	call(http.MethodGet, "/sites/:site/rules", s.apiRules)
	call(http.MethodPost, "/sites/:site/rules", s.apiAddRule)
	call(http.MethodDelete, "/sites/:site/rules/:rule", s.apiRemoveRule)
	call(http.MethodPost, "/import", s.apiImport, follower, unlessPreview(imported))
	call(http.MethodGet, "/imports/:import", s.apiGetImport)
	call(http.MethodGet, "/export", s.apiExport)
	call(http.MethodGet, "/opml", s.apiOPML)
	call(http.MethodGet, "/notifications", s.apiNotifications, s.notifier)
	// As the settings page: a new address is sent a confirmation e-mail,
	// at most every few minutes on average.
	emails := middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Store: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(12.0 / 3600), Burst: 6, ExpiresIn: time.Hour,
		}),
		IdentifierExtractor: func(c echo.Context) (string, error) { return strconv.FormatInt(currentUser(c).ID, 10), nil },
		DenyHandler: func(c echo.Context, _ string, _ error) error {
			return &apiProblem{status: http.StatusTooManyRequests, code: "too_many_requests", retryAfter: 5 * time.Minute,
				detail: "You have changed your notification settings several times just now. Wait a few minutes and try again."}
		},
	})
	call(http.MethodPut, "/notifications", s.apiSetNotifications, s.notifier, middleware.BodyLimit(apiBodyLimit), emails)
	call(http.MethodPost, "/notifications/pushes", s.apiAddPush, s.notifier)
	call(http.MethodDelete, "/notifications/pushes/:push", s.apiRemovePush, s.notifier)
}

// isAPI tells a request of the API, whose errors are problem details.
func isAPI(c echo.Context) bool {
	p := c.Request().URL.Path
	return p == apiPrefix || strings.HasPrefix(p, apiPrefix+"/")
}

// apiToken puts the person the bearer token names into the context, or
// answers 401. Only the token's hash is looked up.
func (s *Server) apiToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		scheme, token, ok := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
		token = strings.TrimSpace(token)
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			return errNoToken
		}
		u, _, err := s.store.APITokenUser(c.Request().Context(), accounts.HashToken(token), time.Now())
		if errors.Is(err, db.ErrNotFound) {
			return errBadToken
		}
		if err != nil {
			return err
		}
		c.Set(userKey, &u)
		return next(c)
	}
}

var (
	errNoToken = &apiProblem{status: http.StatusUnauthorized, code: "unauthorized",
		detail: "Send an API token as \"Authorization: Bearer <token>\". Make one on your settings page, or with tidings user token NAME."}
	errBadToken = &apiProblem{status: http.StatusUnauthorized, code: "unauthorized",
		detail: "This token is not valid here: it was revoked, or it is mistyped. Make a new one on your settings page."}
)

// apiProblem is an API error as RFC 9457 problem details.
type apiProblem struct {
	status     int
	code       string
	detail     string
	retryAfter time.Duration
}

func (p *apiProblem) Error() string { return p.detail }

// problemCodes name the statuses errors of echo itself (and of the
// handlers' middleware) come with.
var problemCodes = map[int]string{
	http.StatusBadRequest:            "bad_request",
	http.StatusUnauthorized:          "unauthorized",
	http.StatusForbidden:             "forbidden",
	http.StatusNotFound:              "not_found",
	http.StatusMethodNotAllowed:      "not_found",
	http.StatusRequestEntityTooLarge: "too_large",
	http.StatusUnsupportedMediaType:  "unsupported_media_type",
	http.StatusTooManyRequests:       "too_many_requests",
	http.StatusServiceUnavailable:    "unavailable",
}

// writeProblem answers an API request's error as problem details.
func (s *Server) writeProblem(err error, c echo.Context) {
	var p *apiProblem
	var he *echo.HTTPError
	switch {
	case errors.As(err, &p):
	case db.IsUnavailable(err):
		p = &apiProblem{status: http.StatusServiceUnavailable, code: "unavailable", retryAfter: unavailableRetry, detail: unavailableMessage}
		s.opts.Logger.Warn("request refused: the database is unavailable", "path", c.Request().URL.Path, "error", err)
	case errors.As(err, &he):
		p = &apiProblem{status: he.Code, code: problemCodes[he.Code], detail: fmt.Sprint(he.Message)}
		switch he.Code {
		case http.StatusNotFound:
			p.detail = "There is nothing at this address of the API: see " + s.abs(strings.TrimPrefix(apiPrefix, "/")+"/openapi.json") + "."
		case http.StatusMethodNotAllowed:
			p.status, p.detail = http.StatusNotFound, "This address of the API takes no "+c.Request().Method+": see "+s.abs(strings.TrimPrefix(apiPrefix, "/")+"/openapi.json")+"."
		case http.StatusRequestEntityTooLarge:
			p.detail = "The body is larger than this API reads (" + apiBodyLimit + "B)."
			if strings.HasSuffix(c.Request().URL.Path, apiPrefix+"/import") {
				p.detail = fmt.Sprintf("The file is larger than an import reads (%d MiB for a changedetection.io backup, %d MiB for other files).", imports.MaxZipBytes>>20, imports.MaxBytes>>20)
			}
		}
		if p.code == "" {
			p.code = "internal"
		}
	default:
		s.opts.Logger.Error("request failed", "path", c.Request().URL.Path, "error", err)
		p = &apiProblem{status: http.StatusInternalServerError, code: "internal", detail: "Something went wrong on our side; it is in the log."}
	}
	if c.Response().Committed {
		return
	}
	h := c.Response().Header()
	if p.status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="tidings"`)
	}
	body := map[string]any{"type": "about:blank", "title": http.StatusText(p.status), "status": p.status, "code": p.code, "detail": p.detail}
	if p.retryAfter > 0 {
		secs := int(math.Ceil(p.retryAfter.Seconds()))
		h.Set("Retry-After", strconv.Itoa(secs))
		body["retry_after"] = secs
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(p.status)
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	enc.Encode(body)
}

// readJSON decodes a request's JSON body into v, refusing other types,
// unknown fields and trailing data with a problem a person can act on.
func readJSON(c echo.Context, v any) error {
	ct := c.Request().Header.Get(echo.HeaderContentType)
	if mt, _, _ := strings.Cut(ct, ";"); !strings.EqualFold(strings.TrimSpace(mt), "application/json") {
		return &apiProblem{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
			detail: "Send the body as JSON, with Content-Type: application/json."}
	}
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge)
		}
		return &apiProblem{status: http.StatusBadRequest, code: "bad_request", detail: "The body is not the JSON object this call takes: " + jsonError(err) + "."}
	}
	if dec.More() {
		return &apiProblem{status: http.StatusBadRequest, code: "bad_request", detail: "The body holds more than one JSON value; send one object."}
	}
	return nil
}

// jsonError phrases a decoding error without Go's type names.
func jsonError(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return fmt.Sprintf("%q should be a JSON %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if msg == "EOF" {
		return "it is empty"
	}
	return msg
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "struct", "map":
		return "object"
	}
	return "number"
}

func (s *Server) apiMe(c echo.Context) error {
	u := currentUser(c)
	return c.JSON(http.StatusOK, map[string]any{"name": u.Name, "admin": u.Admin})
}
