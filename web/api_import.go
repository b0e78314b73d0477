package web

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/follow"
	"tidings/imports"
	"tidings/opml"
)

// apiImportLimit bounds an import's body: the largest file imports
// reads, a changedetection.io backup.
const apiImportLimit = imports.MaxZipBytes

// unlessPreview applies mw to imports, not to their previews, which
// change nothing: a person may look at what a file does before the
// hourly bound of imports counts it.
func unlessPreview(mw echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		limited := mw(next)
		return func(c echo.Context) error {
			if c.QueryParam("preview") == "true" {
				return next(c)
			}
			return limited(c)
		}
	}
}

// apiPreview is an import's preview as the API shows it.
type apiPreview struct {
	Format   string            `json:"format"`
	Follow   []apiPlanned      `json:"follow"`
	Refused  []imports.Refusal `json:"refused"`
	Settings []string          `json:"settings"`
	NotSet   []imports.Refusal `json:"not_set"`
}

type apiPlanned struct {
	URL      string         `json:"url"`
	Site     string         `json:"site"`
	Title    string         `json:"title"`
	Tags     []string       `json:"tags"`
	Rules    []imports.Rule `json:"rules"`
	Notes    []string       `json:"notes"`
	Followed bool           `json:"followed"`
	From     string         `json:"from"`
}

func apiPreviewOf(pv follow.Preview) apiPreview {
	out := apiPreview{Format: pv.Format, Follow: []apiPlanned{}, Refused: orEmpty(pv.Refused), Settings: orEmpty(pv.Settings), NotSet: orEmpty(pv.NotSet)}
	for _, p := range pv.Follow {
		out.Follow = append(out.Follow, apiPlanned{URL: p.URL, Site: p.Root, Title: p.Title, Tags: orEmpty(p.Tags),
			Rules: orEmpty(p.Rules), Notes: orEmpty(p.Notes), Followed: p.Followed, From: p.From})
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// apiImport reads a file of any format imports reads, sent as the body,
// and answers what importing it does (?preview=true), or imports it:
// 202 with the import to poll.
func (s *Server) apiImport(c echo.Context) error {
	preview := false
	switch c.QueryParam("preview") {
	case "", "false":
	case "true":
		preview = true
	default:
		return &apiProblem{status: http.StatusBadRequest, code: "bad_request", detail: `preview is true or false.`}
	}
	data, err := io.ReadAll(c.Request().Body)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge)
	}
	if err != nil {
		return err
	}
	plan, err := imports.Parse(data)
	if errors.Is(err, imports.ErrTooLarge) {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge)
	}
	if err != nil {
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "import_refused", detail: importMessage(err)}
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	if preview {
		pv, err := s.follow.Preview(ctx, u.ID, plan, s.notifications())
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, apiPreviewOf(pv))
	}
	im, pv, err := s.follow.ImportPlan(ctx, *u, plan, s.notifications())
	var nothing *follow.NothingToImportError
	var pending *follow.PendingError
	var quota *follow.QuotaError
	switch {
	case errors.As(err, &quota):
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "quota", detail: quota.Message()}
	case errors.As(err, &nothing):
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "import_refused", detail: "Nothing in the file can be followed: " + joinLimited(nothing.Skipped, 5) + "."}
	case errors.As(err, &pending):
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "pending",
			detail: fmt.Sprintf("You already have %d sites waiting to be looked at, the most tidings keeps waiting for one person. Import the file once they are done.", pending.Pending)}
	case err != nil:
		return err
	}
	body, err := s.apiImportOf(c, im)
	if err != nil {
		return err
	}
	body["preview"] = apiPreviewOf(pv)
	c.Response().Header().Set("Location", s.abs(strings.TrimPrefix(apiPrefix, "/")+"/imports/"+strconv.FormatInt(im.ID, 10)))
	return c.JSON(http.StatusAccepted, body)
}

// apiImportOf is an import with its discoveries, oldest first.
func (s *Server) apiImportOf(c echo.Context, im db.Import) (map[string]any, error) {
	list, err := s.store.Discoveries(c.Request().Context(), im.UserID, im.ID, follow.MaxImportSites)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		x := list[i]
		d := s.apiDiscoveryOf(x)
		if x.SiteID != 0 {
			site, err := s.store.SiteByID(c.Request().Context(), x.SiteID)
			if err != nil && !errors.Is(err, db.ErrNotFound) {
				return nil, err
			}
			if err == nil {
				d.Site = &site.PublicID
			}
		}
		out = append(out, d)
	}
	return map[string]any{"id": im.ID, "created_at": apiTime(im.CreatedAt), "skipped": orEmpty(im.Skipped), "discoveries": out}, nil
}

func (s *Server) apiGetImport(c echo.Context) error {
	notFound := &apiProblem{status: http.StatusNotFound, code: "not_found", detail: "You made no import of this id."}
	id, err := strconv.ParseInt(c.Param("import"), 10, 64)
	if err != nil || id <= 0 {
		return notFound
	}
	im, err := s.store.ImportByID(c.Request().Context(), id)
	if errors.Is(err, db.ErrNotFound) || err == nil && im.UserID != currentUser(c).ID {
		return notFound
	}
	if err != nil {
		return err
	}
	body, err := s.apiImportOf(c, im)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// apiExport answers everything the person set, as the import reads it.
func (s *Server) apiExport(c echo.Context) error {
	b, err := s.exportJSON(c)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "application/json", b)
}

// apiOPML answers the OPML of the person's feeds, as the page's link.
func (s *Server) apiOPML(c echo.Context) error {
	entries, ok := opml.ParseEntries(c.QueryParam("entries"))
	if !ok {
		return &apiProblem{status: http.StatusBadRequest, code: "bad_request", detail: `entries is "page", "digest" or nothing.`}
	}
	var buf bytes.Buffer
	if err := opml.WriteUser(c.Request().Context(), s.store, s.base.String(), *currentUser(c), entries, &buf); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "text/x-opml; charset=utf-8", buf.Bytes())
}
