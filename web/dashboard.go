package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feedbuild"
)

type siteView struct {
	Site        db.Site
	FeedURL     string
	PageURL     string
	Collections []collectionView
	Health      siteHealth
}

type collectionView struct {
	Collection db.Collection
	FeedURL    string
	PageURL    string
}

type dashboardData struct {
	// News are the pages changed across the sites followed, newest first.
	News        []newsItem
	NewsMax     int // how many News holds at most
	Sites       []siteView
	Recent      []discoveryView // discoveries pending, or failed and not dismissed
	UserFeedURL string
	// Unfollowed is the site just unfollowed, offered to follow again.
	Unfollowed *db.Site
}

// discoveryView is a discovery as the dashboard reports it.
type discoveryView struct {
	db.Discovery
	Problem problem
}

// siteViews loads the given sites with their active collections.
func (s *Server) siteViews(c echo.Context, sites []db.Site) ([]siteView, error) {
	out := make([]siteView, 0, len(sites))
	for _, site := range sites {
		cols, err := s.store.Collections(c.Request().Context(), db.CollectionFilter{SiteID: site.ID, ActiveOnly: true})
		if err != nil {
			return nil, err
		}
		v := siteView{Site: site, FeedURL: s.abs(feedbuild.SiteFeedPath(site)), PageURL: s.abs(sitePath(site))}
		for _, col := range cols {
			v.Collections = append(v.Collections, s.collectionView(col))
		}
		v.Health = healthOf(site, v.Collections)
		out = append(out, v)
	}
	return out, nil
}

func (s *Server) collectionView(col db.Collection) collectionView {
	return collectionView{Collection: col, FeedURL: s.abs(feedbuild.CollectionFeedPath(col)), PageURL: s.abs(collectionPath(col))}
}

func (s *Server) dashboard(c echo.Context) error {
	u := currentUser(c)
	if u == nil {
		first, err := s.store.CountUsers(c.Request().Context())
		if err != nil {
			return err
		}
		return s.render(c, http.StatusOK, "landing", "", struct{ SignupOpen, First bool }{s.signupOpen(), first == 0})
	}
	ctx := c.Request().Context()
	sites, err := s.store.FollowedSites(ctx, u.ID)
	if err != nil {
		return err
	}
	d := dashboardData{UserFeedURL: s.abs(feedbuild.UserFeedPath(u.FeedToken)), NewsMax: whatsNew}
	if d.Sites, err = s.siteViews(c, sites); err != nil {
		return err
	}
	if d.News, err = s.news(ctx, u.ID, d.Sites); err != nil {
		return err
	}
	recent, err := s.store.OpenDiscoveries(ctx, u.ID, 10)
	if err != nil {
		return err
	}
	for _, x := range recent {
		d.Recent = append(d.Recent, discoveryView{x, newProblem(x.Message)})
	}
	if id := c.QueryParam("unfollowed"); id != "" {
		site, err := s.store.SiteByPublicID(ctx, id)
		if err != nil && !errors.Is(err, db.ErrNotFound) {
			return err
		}
		if err == nil {
			if ok, err := s.store.Follows(ctx, u.ID, site.ID); err != nil {
				return err
			} else if !ok {
				d.Unfollowed = &site
			}
		}
	}
	return s.render(c, http.StatusOK, "dashboard", "Dashboard", d)
}

// discoveryDismiss removes a failed discovery, and earlier failures at the
// same address, from the dashboard.
func (s *Server) discoveryDismiss(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return echo.NewHTTPError(http.StatusNotFound, "There is no such failure to dismiss.")
	}
	err = s.store.DismissDiscovery(c.Request().Context(), currentUser(c).ID, id)
	if errors.Is(err, db.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "There is no such failure to dismiss: it may have been dismissed already.")
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs("")+"?done=dismissed")
}
