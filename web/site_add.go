package web

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
)

type addData struct {
	URL   string
	Error string
}

func (s *Server) siteAddForm(c echo.Context) error {
	return s.render(c, http.StatusOK, "add", "Add a site", addData{URL: c.QueryParam("url")})
}

// siteAdd checks the address, then follows a known site at once or starts
// discovering a new one in the background.
func (s *Server) siteAdd(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	d := addData{URL: c.FormValue("url")}
	fail := func(msg string) error {
		d.Error = msg
		return s.render(c, http.StatusUnprocessableEntity, "add", "Add a site", d)
	}
	root, err := harvest.SiteRoot(d.URL)
	if err != nil {
		return fail(capitalize(err.Error()) + ".")
	}
	if err := s.opts.Harvester.CheckAddress(ctx, root); err != nil {
		return fail(addressMessage(err))
	}
	site, err := s.store.SiteByURL(ctx, root)
	if err == nil {
		if adds, aerr := s.addsWatchedPage(ctx, site.ID, d.URL); aerr != nil {
			return aerr
		} else if adds {
			// Discovered like a new site: the page is fetched, and the
			// site harvested, which is "Harvest now" by another door.
			if ok, wait := s.harvestNow.allow(site.ID, s.now()); !ok {
				return fail(fmt.Sprintf("Adding this page reads the site now, and it was read on request moments ago; add it again in %d minute(s).",
					int(math.Ceil(wait.Minutes()))))
			}
			err = db.ErrNotFound
		}
	}
	switch {
	case err == nil:
		if err := s.store.Follow(ctx, u.ID, site.ID); errors.Is(err, db.ErrAlreadyExists) {
			return fail("You already follow " + root + ".")
		} else if err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, s.abs(sitePath(site))+"?followed=1")
	case !errors.Is(err, db.ErrNotFound):
		return err
	}
	if n, err := s.store.PendingCount(ctx, u.ID); err != nil {
		return err
	} else if n >= s.opts.MaxPendingDiscoveries {
		return fail(fmt.Sprintf("You already have %d sites waiting to be looked at, the most tidings keeps waiting for one person. Add this one once some of them are done.", n))
	}
	x, err := s.store.CreateDiscovery(ctx, u.ID, 0, d.URL)
	if err != nil {
		return err
	}
	s.jobs.discover(x)
	return c.Redirect(http.StatusSeeOther, s.abs(fmt.Sprintf("discoveries/%d", x.ID)))
}

// addressMessage phrases a refused address for the form: the operator's
// flag means nothing to the person typing.
func addressMessage(err error) string {
	var ae *fetch.AddressError
	if errors.As(err, &ae) {
		return fmt.Sprintf("This address points to %s (%s), which tidings does not fetch from. "+
			"The operator of this tidings can allow such addresses with --allow-private-addresses (TIDINGS_ALLOW_PRIVATE_ADDRESSES=1).", ae.Kind, ae.Address)
	}
	return capitalize(err.Error()) + "."
}

type discoveryData struct {
	Discovery db.Discovery
	Problem   problem
	SiteURL   string
}

func (d discoveryData) refresh() int {
	if d.Discovery.Status == db.DiscoveryPending {
		return 2
	}
	return 0
}

func (s *Server) discoveryPage(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return echo.NewHTTPError(http.StatusNotFound, "No such page.")
	}
	x, err := s.store.DiscoveryByID(c.Request().Context(), id)
	if errors.Is(err, db.ErrNotFound) || (err == nil && x.UserID != currentUser(c).ID) {
		return echo.NewHTTPError(http.StatusNotFound, "No such page.")
	}
	if err != nil {
		return err
	}
	d := discoveryData{Discovery: x, Problem: newProblem(x.Message)}
	if x.SiteID != 0 {
		site, err := s.store.SiteByID(c.Request().Context(), x.SiteID)
		if err != nil {
			return err
		}
		d.SiteURL = s.abs(sitePath(site))
	}
	return s.render(c, http.StatusOK, "discovery", "Adding "+x.InputURL, d)
}
