package web

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feedbuild"
)

type siteView struct {
	Site        db.Site
	FeedURL     string
	PageURL     string
	Collections []collectionView
}

type collectionView struct {
	Collection db.Collection
	FeedURL    string
	PageURL    string
	Precision  string // "watches 37 pages"
}

type dashboardData struct {
	Sites       []siteView
	Recent      []db.Discovery // discoveries still pending or that failed lately
	UserFeedURL string
}

// siteViews loads the given sites with their active collections.
func (s *Server) siteViews(c echo.Context, sites []db.Site) ([]siteView, error) {
	out := make([]siteView, 0, len(sites))
	for _, site := range sites {
		cols, err := s.store.Collections(c.Request().Context(), db.CollectionFilter{SiteID: site.ID, ActiveOnly: true})
		if err != nil {
			return nil, err
		}
		v := siteView{Site: site, FeedURL: s.abs(feedbuild.SiteFeedPath(site.ID)), PageURL: s.abs(fmt.Sprintf("site/%d", site.ID))}
		for _, col := range cols {
			v.Collections = append(v.Collections, s.collectionView(col))
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *Server) collectionView(col db.Collection) collectionView {
	return collectionView{Collection: col, FeedURL: s.abs(feedbuild.CollectionFeedPath(col.ID)), PageURL: s.abs(fmt.Sprintf("collection/%d", col.ID)),
		Precision: feedbuild.Precision(col)}
}

func (s *Server) dashboard(c echo.Context) error {
	u := currentUser(c)
	if u == nil {
		return s.render(c, http.StatusOK, "landing", "", struct{ SignupOpen bool }{s.signupOpen()})
	}
	ctx := c.Request().Context()
	sites, err := s.store.FollowedSites(ctx, u.ID)
	if err != nil {
		return err
	}
	d := dashboardData{UserFeedURL: s.abs(feedbuild.UserFeedPath(u.FeedToken))}
	if d.Sites, err = s.siteViews(c, sites); err != nil {
		return err
	}
	recent, err := s.store.Discoveries(ctx, u.ID, 0, 10)
	if err != nil {
		return err
	}
	for _, x := range recent {
		if x.Status == db.DiscoveryPending || x.Status == db.DiscoveryFailed {
			d.Recent = append(d.Recent, x)
		}
	}
	return s.render(c, http.StatusOK, "dashboard", "Dashboard", d)
}
