package web

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/follow"
	"tidings/opml"
)

// maxOPMLBytes bounds an uploaded OPML file.
const maxOPMLBytes = 2 << 20

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

type importData struct {
	Error string
}

func (s *Server) opmlImportForm(c echo.Context) error {
	return s.render(c, http.StatusOK, "import", "Import OPML", importData{})
}

// opmlImport reads an uploaded OPML file and starts following the site of
// each outline. A file that cannot be read changes nothing.
func (s *Server) opmlImport(c echo.Context) error {
	fail := func(msg string) error {
		return s.render(c, http.StatusUnprocessableEntity, "import", "Import OPML", importData{Error: msg})
	}
	fh, err := c.FormFile("opml")
	if err != nil {
		return fail("Choose an OPML file to import.")
	}
	if fh.Size > maxOPMLBytes {
		return fail(fmt.Sprintf("The file is too large: at most %d KiB is accepted.", maxOPMLBytes>>10))
	}
	f, err := fh.Open()
	if err != nil {
		return fail("The file could not be read.")
	}
	defer f.Close()
	outlines, skipped, err := opml.Parse(f, maxOPMLBytes)
	if err != nil {
		return fail(capitalize(trimPrefix(err.Error(), "opml: ")) + ".")
	}
	im, err := s.follow.Import(c.Request().Context(), currentUser(c).ID, outlines, skipped)
	var nothing *follow.NothingToImportError
	var pending *follow.PendingError
	var quota *follow.QuotaError
	switch {
	case errors.As(err, &quota):
		return fail(quota.Message())
	case errors.As(err, &nothing):
		return fail("No outline in the file names a site that can be followed: " + joinLimited(nothing.Skipped, 5))
	case errors.As(err, &pending):
		return fail(fmt.Sprintf("You already have %d sites waiting to be looked at, the most tidings keeps waiting for one person. Import the file once they are done.", pending.Pending))
	case err != nil:
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs(fmt.Sprintf("imports/%d", im.ID)))
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
