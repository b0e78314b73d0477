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
	"tidings/harvest"
	"tidings/opml"
)

// maxOPMLBytes bounds an uploaded OPML file.
const maxOPMLBytes = 2 << 20

// maxImportSites bounds the sites one import may start discovering.
const maxImportSites = 500

func (s *Server) opmlExport(c echo.Context) error {
	u := currentUser(c)
	var buf bytes.Buffer
	if err := opml.WriteUser(c.Request().Context(), s.store, s.base.String(), *u, &buf); err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="tidings.opml"`)
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
	sites, more := s.importURLs(outlines)
	skipped = append(skipped, more...)
	if len(sites) == 0 {
		return fail("No outline in the file names a site that can be followed: " + joinLimited(skipped, 5))
	}
	u := currentUser(c)
	waiting, err := s.store.PendingCount(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	room := max(0, s.opts.MaxPendingDiscoveries-waiting)
	if room == 0 {
		return fail(fmt.Sprintf("You already have %d sites waiting to be looked at, the most tidings keeps waiting for one person. Import the file once they are done.", waiting))
	}
	if len(sites) > room {
		for _, site := range sites[room:] {
			skipped = append(skipped, fmt.Sprintf("%s: not queued: at most %d of your sites may wait to be looked at; import the file again once these are done", site.URL, s.opts.MaxPendingDiscoveries))
		}
		sites = sites[:room]
	}
	im, err := s.store.CreateImportTitled(c.Request().Context(), u.ID, sites, skipped)
	if err != nil {
		return err
	}
	pending, err := s.store.Discoveries(c.Request().Context(), u.ID, im.ID, maxImportSites)
	if err != nil {
		return err
	}
	for _, x := range pending {
		s.jobs.discover(x)
	}
	return c.Redirect(http.StatusSeeOther, s.abs(fmt.Sprintf("imports/%d", im.ID)))
}

// importURLs picks one address per site from the outlines: the page
// (htmlUrl) when given, else the feed (xmlUrl), whose site is the same;
// with the outline's title, which the follow keeps.
func (s *Server) importURLs(outlines []opml.Outline) (sites []db.ImportSite, skipped []string) {
	seen := map[string]bool{}
	for _, o := range outlines {
		addr := o.HTMLURL
		if addr == "" {
			addr = o.XMLURL
		}
		root, err := harvest.SiteRoot(addr)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%q: %v", o.Title, err))
			continue
		}
		if seen[root] {
			continue
		}
		if len(sites) >= maxImportSites {
			skipped = append(skipped, fmt.Sprintf("%s: only %d sites are imported at once", addr, maxImportSites))
			continue
		}
		seen[root] = true
		sites = append(sites, db.ImportSite{URL: addr, Title: o.Title})
	}
	return sites, skipped
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
	list, err := s.store.Discoveries(ctx, u.ID, im.ID, maxImportSites)
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
