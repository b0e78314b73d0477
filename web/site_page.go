package web

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feedbuild"
)

// followedSite loads the site in the path if the signed-in user follows it;
// for anyone else it does not exist.
func (s *Server) followedSite(c echo.Context) (db.Site, error) {
	notFound := echo.NewHTTPError(http.StatusNotFound, "No such site among the ones you follow.")
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return db.Site{}, notFound
	}
	ctx := c.Request().Context()
	ok, err := s.store.Follows(ctx, currentUser(c).ID, id)
	if err != nil {
		return db.Site{}, err
	}
	if !ok {
		return db.Site{}, notFound
	}
	return s.store.SiteByID(ctx, id)
}

type sitePageData struct {
	View    siteView
	Changes []changeView
	Runs    []runView
	Notice  string
}

// changeView is one change as the site and collection pages show it.
type changeView struct {
	db.Change
	Collection string        // "" on a collection's own page
	Name       string        // the page's title, or its URL when it has none
	Label      string        // the kind, capitalised
	Diff       template.HTML // "" when the text is unknown or unchanged
	Line       string        // the diff in one line, for a folded diff
	Folded     bool
	// SameText: a protocol said the page changed, its text did not.
	SameText bool
}

// openDiffs is how many changes show their diff unfolded: past them, a page
// of fifty changes would be mostly diff text.
const openDiffs = 5

// newChangeView prepares the n-th change of a page (from 0).
func newChangeView(ch db.Change, collection string, n int) changeView {
	v := changeView{Change: ch, Collection: collection, Name: ch.Title, Label: kindLabel(ch.Kind)}
	if v.Name == "" {
		v.Name = ch.URL
	}
	v.SameText = ch.TextChange == db.TextUnchanged
	if d, ok := feedbuild.TextDiff(ch); ok {
		// pagetext escapes every piece of the site's text it puts in the
		// HTML, so the markup is its own <p>, <ins> and <del> only.
		v.Diff = template.HTML(d.HTML())
		v.Line = d.Summary()
		v.Folded = n >= openDiffs
	}
	return v
}

func kindLabel(kind string) string {
	switch kind {
	case "created":
		return "Created"
	case "updated":
		return "Updated"
	case "deleted":
		return "Deleted"
	}
	return kind
}

type runView struct {
	db.Run
	Collection string
}

func (s *Server) sitePage(c echo.Context) error {
	site, err := s.followedSite(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	views, err := s.siteViews(c, []db.Site{site})
	if err != nil {
		return err
	}
	names := map[int64]string{}
	for _, cv := range views[0].Collections {
		names[cv.Collection.ID] = cv.Collection.Title
	}
	d := sitePageData{View: views[0]}
	changes, err := s.store.FeedChanges(ctx, db.Scope{SiteID: site.ID}, 30)
	if err != nil {
		return err
	}
	for i, ch := range changes {
		d.Changes = append(d.Changes, newChangeView(ch, names[ch.CollectionID], i))
	}
	runs, err := s.store.Runs(ctx, site.ID, 20)
	if err != nil {
		return err
	}
	for _, r := range runs {
		name := "the site"
		if r.CollectionID != 0 {
			name = names[r.CollectionID]
		}
		d.Runs = append(d.Runs, runView{r, name})
	}
	switch c.QueryParam("harvest") {
	case "started":
		d.Notice = "A harvest has started. Refresh in a moment to see what it found."
	case "wait":
		d.Notice = "This site was harvested on request a moment ago. Try again in " + c.QueryParam("in") + "."
	}
	return s.render(c, http.StatusOK, "site", site.URL, d)
}

// siteHarvest harvests a followed site now, in the background, at most once
// per HarvestNowEvery for each site whoever asks.
func (s *Server) siteHarvest(c echo.Context) error {
	site, err := s.followedSite(c)
	if err != nil {
		return err
	}
	page := s.abs(fmt.Sprintf("site/%d", site.ID))
	if ok, wait := s.harvestNow.allow(site.ID, s.now()); !ok {
		mins := int(math.Ceil(wait.Minutes()))
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("%s?harvest=wait&in=%d+minute(s)", page, mins))
	}
	s.jobs.harvest(site)
	return c.Redirect(http.StatusSeeOther, page+"?harvest=started")
}

func (s *Server) siteUnfollow(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return echo.NewHTTPError(http.StatusNotFound, "No such site among the ones you follow.")
	}
	err = s.store.Unfollow(c.Request().Context(), currentUser(c).ID, id)
	if errors.Is(err, db.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "No such site among the ones you follow.")
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs(""))
}

type collectionPageData struct {
	View    collectionView
	SiteURL string
	Changes []changeView
}

func (s *Server) collectionPage(c echo.Context) error {
	notFound := echo.NewHTTPError(http.StatusNotFound, "No such collection among the sites you follow.")
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return notFound
	}
	ctx := c.Request().Context()
	col, err := s.store.CollectionByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	if ok, err := s.store.Follows(ctx, currentUser(c).ID, col.SiteID); err != nil {
		return err
	} else if !ok {
		return notFound
	}
	changes, err := s.store.FeedChanges(ctx, db.Scope{CollectionID: col.ID}, 50)
	if err != nil {
		return err
	}
	d := collectionPageData{View: s.collectionView(col), SiteURL: s.abs(fmt.Sprintf("site/%d", col.SiteID))}
	for i, ch := range changes {
		d.Changes = append(d.Changes, newChangeView(ch, "", i))
	}
	return s.render(c, http.StatusOK, "collection", col.Title, d)
}
