package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/follow"
	"tidings/imports"
	"tidings/opml"
)

// opmlExport downloads the OPML of everything the person follows, with
// the feeds of one entry per changed page when ?entries=page asks.
func (s *Server) opmlExport(c echo.Context) error {
	u := currentUser(c)
	entries, ok := opml.ParseEntries(c.QueryParam("entries"))
	if !ok {
		return echo.NewHTTPError(http.StatusBadRequest, `entries is "page" or nothing`)
	}
	var buf bytes.Buffer
	if err := opml.WriteUser(c.Request().Context(), s.store, s.base.String(), *u, entries, &buf); err != nil {
		return err
	}
	name := "tidings.opml"
	if entries == opml.PerPage {
		name = "tidings-pages.opml"
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	return c.Blob(http.StatusOK, "text/x-opml; charset=utf-8", buf.Bytes())
}

// exportAll downloads everything the person set, as the file the
// import reads back.
func (s *Server) exportAll(c echo.Context) error {
	b, err := s.exportJSON(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="tidings-export.json"`)
	return c.Blob(http.StatusOK, "application/json", b)
}

func (s *Server) exportJSON(c echo.Context) ([]byte, error) {
	e, err := follow.Export(c.Request().Context(), s.store, *currentUser(c), time.Now())
	if err != nil {
		return nil, err
	}
	return e.Write()
}

type importData struct {
	Error string
}

func (s *Server) opmlImportForm(c echo.Context) error {
	return s.render(c, http.StatusOK, "import", "Import", importData{})
}

// importPreviewData is the page that says what an import will do.
type importPreviewData struct {
	follow.Preview
	// PlanJSON and RefusedJSON are what the page's form sends back to
	// import: the sites as tidings' export, and the entries refused.
	PlanJSON, RefusedJSON string
}

// opmlImport reads an uploaded file of any format imports reads (OPML,
// a changedetection.io backup, urls.yaml, a list, tidings' export) and
// shows what importing it does, or, from the preview's form (or with
// the Import button at once), imports it. A file that cannot be read
// changes nothing.
func (s *Server) opmlImport(c echo.Context) error {
	fail := func(msg string) error {
		return s.render(c, http.StatusUnprocessableEntity, "import", "Import", importData{Error: msg})
	}
	data, refused, msg := readImport(c)
	if msg != "" {
		return fail(msg)
	}
	plan, err := imports.Parse(data)
	if err != nil {
		return fail(importMessage(err))
	}
	plan.Refused = append(refused, plan.Refused...)
	ctx := c.Request().Context()
	u := currentUser(c)
	if c.FormValue("preview") != "" {
		pv, err := s.follow.Preview(ctx, u.ID, plan, s.notifications())
		if err != nil {
			return err
		}
		d := importPreviewData{Preview: pv}
		b, err := pv.Confirmed(plan.Settings).Write()
		if err != nil {
			return err
		}
		d.PlanJSON = string(b)
		r, err := json.Marshal(pv.Refused)
		if err != nil {
			return err
		}
		d.RefusedJSON = string(r)
		return s.render(c, http.StatusOK, "import_preview", "Import", d)
	}
	im, _, err := s.follow.ImportPlan(ctx, *u, plan, s.notifications())
	var nothing *follow.NothingToImportError
	var pending *follow.PendingError
	var quota *follow.QuotaError
	switch {
	case errors.As(err, &quota):
		return fail(quota.Message())
	case errors.As(err, &nothing):
		return fail("Nothing in the file can be followed: " + joinLimited(nothing.Skipped, 5))
	case errors.As(err, &pending):
		return fail(fmt.Sprintf("You already have %d sites waiting to be looked at, the most tidings keeps waiting for one person. Import the file once they are done.", pending.Pending))
	case err != nil:
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs(fmt.Sprintf("imports/%d", im.ID)))
}

// readImport reads the file of an import form: an upload (field file,
// or opml as the form had it before), or the plan a preview's page
// sends back with the entries it refused. msg says what is wrong.
func readImport(c echo.Context) (data []byte, refused []imports.Refusal, msg string) {
	if plan := c.FormValue("plan"); plan != "" {
		if r := c.FormValue("refused"); r != "" {
			if err := json.Unmarshal([]byte(r), &refused); err != nil || len(refused) > imports.MaxEntries {
				return nil, nil, "The preview's page sent back what it did not show. Upload the file again."
			}
		}
		return []byte(plan), refused, ""
	}
	fh, err := c.FormFile("file")
	if err != nil {
		fh, err = c.FormFile("opml")
	}
	if err != nil {
		return nil, nil, "Choose a file to import."
	}
	if fh.Size > imports.MaxZipBytes {
		return nil, nil, fmt.Sprintf("The file is too large: at most %d MiB is accepted.", imports.MaxZipBytes>>20)
	}
	f, err := fh.Open()
	if err != nil {
		return nil, nil, "The file could not be read."
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, imports.MaxZipBytes+1))
	if err != nil {
		return nil, nil, "The file could not be read."
	}
	return data, nil, ""
}

// importMessage is the sentence a file's error makes.
func importMessage(err error) string {
	msg := trimPrefix(trimPrefix(err.Error(), "imports: "), "opml: ")
	return capitalize(msg) + "."
}

// notifications is what an import sets of a person's notification
// settings, nil when this tidings sends none.
func (s *Server) notifications() follow.Notifications {
	if s.opts.Notify == nil {
		return nil
	}
	return s.opts.Notify
}

type importResultData struct {
	Import   db.Import
	Followed []db.Discovery
	Already  []db.Discovery
	Failed   []db.Discovery
	Pending  []db.Discovery
}

func (d importResultData) refresh() int {
	if len(d.Pending) > 0 {
		return 3
	}
	return 0
}

func (s *Server) opmlImportResult(c echo.Context) error {
	notFound := echo.NewHTTPError(http.StatusNotFound, "No such import.")
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return notFound
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	im, err := s.store.ImportByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) || (err == nil && im.UserID != u.ID) {
		return notFound
	}
	if err != nil {
		return err
	}
	list, err := s.store.Discoveries(ctx, u.ID, im.ID, follow.MaxImportSites)
	if err != nil {
		return err
	}
	d := importResultData{Import: im}
	for i := len(list) - 1; i >= 0; i-- {
		x := list[i]
		switch x.Status {
		case db.DiscoveryFollowed:
			d.Followed = append(d.Followed, x)
		case db.DiscoveryAlready:
			d.Already = append(d.Already, x)
		case db.DiscoveryFailed:
			d.Failed = append(d.Failed, x)
		default:
			d.Pending = append(d.Pending, x)
		}
	}
	return s.render(c, http.StatusOK, "import_result", "Import", d)
}

func trimPrefix(s, prefix string) string { return strings.TrimPrefix(s, prefix) }

// joinLimited joins the first n items, noting how many more there were.
func joinLimited(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:n], "; ") + fmt.Sprintf("; and %d more", len(items)-n)
}
