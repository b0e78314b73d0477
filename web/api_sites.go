package web

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/feeds"
	"tidings/follow"
)

// The API's views of what it answers: the names and shapes of
// openapi.yaml's schemas.
type (
	apiFeeds struct {
		Atom string `json:"atom"`
		RSS  string `json:"rss"`
		JSON string `json:"json"`
	}
	apiCollection struct {
		ID        string   `json:"id"`
		Title     string   `json:"title"`
		Source    string   `json:"source"`
		SourceURL string   `json:"source_url"`
		Active    bool     `json:"active"`
		Changes   int      `json:"changes"`
		Feeds     apiFeeds `json:"feeds"`
		Page      string   `json:"page"`
	}
	apiHealth struct {
		State         string     `json:"state"`
		Summary       string     `json:"summary"`
		Problems      []string   `json:"problems"`
		LastHarvestAt *time.Time `json:"last_harvest_at"`
		NextHarvestAt *time.Time `json:"next_harvest_at"`
	}
	apiSite struct {
		ID          string          `json:"id"`
		URL         string          `json:"url"`
		Title       string          `json:"title"`
		Followed    bool            `json:"followed"`
		Feeds       apiFeeds        `json:"feeds"`
		Page        string          `json:"page"`
		Collections []apiCollection `json:"collections"`
		Health      apiHealth       `json:"health"`
	}
	apiDiscovery struct {
		ID        int64     `json:"id"`
		URL       string    `json:"url"`
		Status    string    `json:"status"`
		Site      *string   `json:"site"`
		Message   string    `json:"message"`
		CreatedAt time.Time `json:"created_at"`
	}
)

func (s *Server) feedsOf(atom string) apiFeeds {
	return apiFeeds{Atom: atom, RSS: feedbuild.InFormat(atom, feeds.RSS), JSON: feedbuild.InFormat(atom, feeds.JSON)}
}

// apiSiteOf is a site as the API shows it to a person.
func (s *Server) apiSiteOf(c echo.Context, site db.Site, followed bool) (apiSite, error) {
	views, err := s.siteViews(c, []db.Site{site})
	if err != nil {
		return apiSite{}, err
	}
	v := views[0]
	out := apiSite{ID: site.PublicID, URL: site.URL, Title: siteName(site), Followed: followed, Feeds: s.feedsOf(v.FeedURL),
		Page: v.PageURL, Collections: []apiCollection{}, Health: apiHealth{State: v.Health.Outcome, Summary: v.Health.Summary,
			Problems: append([]string{}, v.Health.Problems...), LastHarvestAt: apiTimePtr(site.LastHarvestAt), NextHarvestAt: apiTimePtr(site.NextHarvestAt)}}
	if site.UnfollowedAt != nil {
		out.Health.State, out.Health.Summary = "unfollowed", "nobody here follows it: it is no longer harvested"
	}
	for _, cv := range v.Collections {
		col := cv.Collection
		out.Collections = append(out.Collections, apiCollection{ID: col.PublicID, Title: col.Title, Source: col.Protocol,
			SourceURL: col.SourceURL, Active: col.Active, Changes: col.Changes, Feeds: s.feedsOf(cv.FeedURL), Page: cv.PageURL})
	}
	return out, nil
}

// apiPathSite is the followed site the path names by its public id;
// any other answers 404, as if it did not exist.
func (s *Server) apiPathSite(c echo.Context) (db.Site, error) {
	return s.apiFollowedSite(c, c.Param("site"))
}

// apiFollowedSite is the followed site of a public id, wherever the
// request names it.
func (s *Server) apiFollowedSite(c echo.Context, id string) (db.Site, error) {
	site, err := s.store.SiteByPublicID(c.Request().Context(), id)
	if errors.Is(err, db.ErrNotFound) {
		return db.Site{}, errNoAPISite
	}
	if err != nil {
		return db.Site{}, err
	}
	ok, err := s.store.Follows(c.Request().Context(), currentUser(c).ID, site.ID)
	if err != nil {
		return db.Site{}, err
	}
	if !ok {
		return db.Site{}, errNoAPISite
	}
	return site, nil
}

var errNoAPISite = &apiProblem{status: http.StatusNotFound, code: "not_found",
	detail: "You follow no site of this id: GET /sites lists those you do."}

func (s *Server) apiSites(c echo.Context) error {
	sites, err := s.store.FollowedSites(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	out := make([]apiSite, 0, len(sites))
	for _, site := range sites {
		v, err := s.apiSiteOf(c, site, true)
		if err != nil {
			return err
		}
		out = append(out, v)
	}
	return c.JSON(http.StatusOK, map[string]any{"sites": out})
}

func (s *Server) apiSite(c echo.Context) error {
	site, err := s.apiPathSite(c)
	if err != nil {
		return err
	}
	v, err := s.apiSiteOf(c, site, true)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// apiFollow follows an address as the add form does. A retried call is
// answered as the first was answered once it is done: 200 with the site.
func (s *Server) apiFollow(c echo.Context) error {
	var body struct {
		URL string `json:"url"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	if body.URL == "" {
		return &apiProblem{status: http.StatusBadRequest, code: "bad_request", detail: "Give the address of the site to follow as \"url\"."}
	}
	added, err := s.follow.Add(c.Request().Context(), currentUser(c).ID, body.URL)
	if p := followProblem(err); p != nil {
		return p
	}
	switch {
	case errors.Is(err, follow.ErrAlreadyFollowed):
		v, err := s.apiSiteOf(c, added.Site, true)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"site": v})
	case err != nil:
		return err
	case added.Discovery.ID != 0:
		c.Response().Header().Set("Location", s.abs(fmt.Sprintf("%s/discoveries/%d", apiPrefix[1:], added.Discovery.ID)))
		return c.JSON(http.StatusAccepted, map[string]any{"discovery": s.apiDiscoveryOf(added.Discovery)})
	}
	v, err := s.apiSiteOf(c, added.Site, true)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Location", s.abs(apiPrefix[1:]+"/sites/"+added.Site.PublicID))
	return c.JSON(http.StatusCreated, map[string]any{"site": v})
}

// followProblem phrases what the follow use case refuses, as the add form
// does, with a code to switch on; nil for anything else.
func followProblem(err error) *apiProblem {
	var (
		bad     *follow.AddressError
		wait    *follow.WaitError
		pending *follow.PendingError
		quota   *follow.QuotaError
	)
	switch {
	case errors.As(err, &bad):
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "address_refused", detail: addressMessage(bad.Err)}
	case errors.As(err, &wait):
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "wait", retryAfter: wait.Wait,
			detail: fmt.Sprintf("This site was read on request moments ago; ask again in %d minute(s).", int(math.Ceil(wait.Wait.Minutes())))}
	case errors.As(err, &quota):
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "quota", detail: quota.Message()}
	case errors.As(err, &pending):
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "pending",
			detail: fmt.Sprintf("You already have %d sites waiting to be looked at, the most tidings keeps waiting for one person. Add this one once some of them are done.", pending.Pending)}
	}
	return nil
}

func (s *Server) apiDiscoveryOf(x db.Discovery) apiDiscovery {
	return apiDiscovery{ID: x.ID, URL: x.InputURL, Status: x.Status, Message: x.Message, CreatedAt: apiTime(x.CreatedAt)}
}

func (s *Server) apiDiscovery(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("discovery"), 10, 64)
	notFound := &apiProblem{status: http.StatusNotFound, code: "not_found", detail: "You have no discovery of this id."}
	if err != nil || id <= 0 {
		return notFound
	}
	x, err := s.store.DiscoveryByID(c.Request().Context(), id)
	if errors.Is(err, db.ErrNotFound) || (err == nil && x.UserID != currentUser(c).ID) {
		return notFound
	}
	if err != nil {
		return err
	}
	out := s.apiDiscoveryOf(x)
	if x.SiteID != 0 {
		site, err := s.store.SiteByID(c.Request().Context(), x.SiteID)
		if err != nil && !errors.Is(err, db.ErrNotFound) {
			return err
		}
		if err == nil {
			out.Site = &site.PublicID
		}
	}
	return c.JSON(http.StatusOK, out)
}

// apiUnfollow stops following a site; a site the person does not follow
// is answered as done, so that a retried call succeeds.
func (s *Server) apiUnfollow(c echo.Context) error {
	site, err := s.store.SiteByPublicID(c.Request().Context(), c.Param("site"))
	if errors.Is(err, db.ErrNotFound) {
		return errNoAPISite
	}
	if err != nil {
		return err
	}
	err = s.follow.Unfollow(c.Request().Context(), currentUser(c).ID, site.ID)
	if err != nil && !errors.Is(err, db.ErrNotFound) {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *Server) apiHarvest(c echo.Context) error {
	site, err := s.apiPathSite(c)
	if err != nil {
		return err
	}
	err = s.follow.HarvestNow(c.Request().Context(), currentUser(c).ID, site)
	if p := followProblem(err); p != nil {
		return p
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"queued": true})
}

func (s *Server) apiLookup(c echo.Context) error {
	raw := c.QueryParam("url")
	if raw == "" {
		return &apiProblem{status: http.StatusBadRequest, code: "bad_request", detail: "Give the address to look up as ?url=."}
	}
	l, err := s.follow.Lookup(c.Request().Context(), currentUser(c).ID, raw)
	if p := followProblem(err); p != nil {
		return p
	}
	if err != nil {
		return err
	}
	out := map[string]any{"url": l.Address.Root, "followed": l.Followed, "followed_here": l.Here, "site": nil}
	if l.Site.ID != 0 && (l.Here || l.Followed) {
		v, err := s.apiSiteOf(c, l.Site, l.Followed)
		if err != nil {
			return err
		}
		out["site"] = v
	}
	return c.JSON(http.StatusOK, out)
}

// apiTime is a time as the API writes it: in UTC, to the microsecond the
// store keeps, whether it was just made or read back.
func apiTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func apiTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := apiTime(*t)
	return &v
}
