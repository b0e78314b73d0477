package web

import (
	"github.com/labstack/echo/v4"

	"tidings/db"
)

type indexSite struct {
	Site        db.Site
	FeedURL     string
	Collections []indexCollection
}

type indexCollection struct {
	Collection db.Collection
	FeedURL    string
}

// index lists every followed site with its collections' feed URLs.
func (s *Server) index(c echo.Context) error {
	ctx := c.Request().Context()
	sites, err := s.store.Sites(ctx)
	if err != nil {
		return err
	}
	cols, err := s.store.Collections(ctx, db.CollectionFilter{ActiveOnly: true})
	if err != nil {
		return err
	}
	bySite := map[int64][]indexCollection{}
	for _, col := range cols {
		bySite[col.SiteID] = append(bySite[col.SiteID], indexCollection{col, s.abs(CollectionFeedPath(col.ID))})
	}
	data := struct {
		Base  string
		Sites []indexSite
	}{Base: s.base.String()}
	for _, site := range sites {
		data.Sites = append(data.Sites, indexSite{site, s.abs(SiteFeedPath(site.ID)), bySite[site.ID]})
	}
	return s.render(c, "index", data)
}
