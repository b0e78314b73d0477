package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/fetch"
	"tidings/follow"
)

type addData struct {
	URL   string
	Error string
	// Known is what tidings knows of the address given in the link
	// (/add?url=…, as the bookmarklet opens it), nil when none was.
	Known *knownAddress
	// Bookmarklet opens this page from any page, its address filled in.
	Bookmarklet template.URL
}

// knownAddress says at once whether an address given in a link is
// followed: by the person (with their site's page), or by others here.
type knownAddress struct {
	Followed, Here bool
	Site           string
	SiteURL        string
}

func (s *Server) siteAddForm(c echo.Context) error {
	d := addData{URL: c.QueryParam("url"), Bookmarklet: s.bookmarklet()}
	if d.URL != "" && s.follow != nil {
		l, err := s.follow.Lookup(c.Request().Context(), currentUser(c).ID, d.URL)
		var bad *follow.AddressError
		switch {
		case errors.As(err, &bad):
			d.Error = addressMessage(bad.Err)
		case err != nil:
			return err
		case l.Site.ID != 0:
			d.Known = &knownAddress{Followed: l.Followed, Here: l.Here, Site: siteName(l.Site), SiteURL: s.abs(sitePath(l.Site))}
		}
	}
	return s.render(c, http.StatusOK, "add", "Add a site", d)
}

// bookmarklet is a link that, kept among a browser's bookmarks, opens
// this page from the page being read, with its address filled in. It
// only navigates: following still takes the person's click on the form.
func (s *Server) bookmarklet() template.URL {
	target, _ := json.Marshal(s.abs("add") + "?url=")
	// json.Marshal escapes <, > and & too: the link stays one string
	// whatever the base URL holds.
	return template.URL("javascript:location.href=" + string(target) + "+encodeURIComponent(location.href)")
}

// siteAdd asks the follow service to follow the address: a known site is
// followed at once, a new one discovered in the background.
func (s *Server) siteAdd(c echo.Context) error {
	d := addData{URL: c.FormValue("url"), Bookmarklet: s.bookmarklet()}
	added, err := s.follow.Add(c.Request().Context(), currentUser(c).ID, d.URL)
	var (
		bad     *follow.AddressError
		wait    *follow.WaitError
		pending *follow.PendingError
		quota   *follow.QuotaError
	)
	switch {
	case errors.As(err, &bad):
		d.Error = addressMessage(bad.Err)
	case errors.As(err, &wait):
		d.Error = fmt.Sprintf("Adding this page reads the site now, and it was read on request moments ago; add it again in %d minute(s).",
			int(math.Ceil(wait.Wait.Minutes())))
	case errors.Is(err, follow.ErrAlreadyFollowed):
		d.Error = "You already follow " + added.Site.URL + "."
	case errors.As(err, &quota):
		d.Error = quota.Message()
	case errors.As(err, &pending):
		d.Error = fmt.Sprintf("You already have %d sites waiting to be looked at, the most tidings keeps waiting for one person. Add this one once some of them are done.", pending.Pending)
	case err != nil:
		return err
	case added.Discovery.ID != 0:
		return c.Redirect(http.StatusSeeOther, s.abs(fmt.Sprintf("discoveries/%d", added.Discovery.ID)))
	default:
		return c.Redirect(http.StatusSeeOther, s.abs(sitePath(added.Site))+"?followed=1")
	}
	return s.render(c, http.StatusUnprocessableEntity, "add", "Add a site", d)
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
