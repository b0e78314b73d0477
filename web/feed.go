package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feeds"
	"tidings/harvest"
)

// feedFile reads "<name>.<atom|rss|json>" from the path.
func feedFile(c echo.Context) (string, feeds.Format, error) {
	name, ext, ok := cutLast(c.Param("file"), ".")
	format, known := feeds.FormatByExt(ext)
	if !ok || !known || name == "" {
		return "", 0, errNoFeed
	}
	return name, format, nil
}

// feedID reads "<id>.<format>" from the path.
func feedID(c echo.Context) (int64, feeds.Format, error) {
	name, format, err := feedFile(c)
	if err != nil {
		return 0, 0, err
	}
	id, err := strconv.ParseInt(name, 10, 64)
	// One feed, one URL: "01.atom" and "+1.atom" are not aliases.
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != name {
		return 0, 0, errNoFeed
	}
	return id, format, nil
}

var errNoFeed = echo.NewHTTPError(http.StatusNotFound, "No such feed.")

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

func (s *Server) collectionFeed(c echo.Context) error {
	id, format, err := feedID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	col, err := s.store.CollectionByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return errNoFeed
	}
	if err != nil {
		return err
	}
	return s.serveFeed(c, gen, &feedSpec{
		scope:  db.Scope{CollectionID: col.ID},
		path:   collectionFeedBase(col.ID),
		format: format,
		public: true,
		meta: feeds.Feed{
			ID:           s.tag(col.CreatedAt, fmt.Sprintf("collection/%d", col.ID)),
			Title:        col.Title,
			Subtitle:     "Changes to " + col.Key + ", as the site's change information tells them",
			AlternateURL: collectionHome(col),
		},
		created: col.CreatedAt,
		collections: func() (map[int64]db.Collection, error) {
			return map[int64]db.Collection{col.ID: col}, nil
		},
	})
}

func (s *Server) siteFeed(c echo.Context) error {
	id, format, err := feedID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	gen := s.store.Generation(ctx)
	site, err := s.store.SiteByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return errNoFeed
	}
	if err != nil {
		return err
	}
	title := site.Title
	if title == "" {
		title = site.URL
	}
	return s.serveFeed(c, gen, &feedSpec{
		scope:  db.Scope{SiteID: site.ID},
		path:   siteFeedBase(site.ID),
		format: format,
		public: true,
		meta: feeds.Feed{
			ID:           s.tag(site.CreatedAt, fmt.Sprintf("site/%d", site.ID)),
			Title:        title,
			Subtitle:     "Changes to every collection of " + site.URL,
			AlternateURL: site.URL,
		},
		created: site.CreatedAt,
		collections: func() (map[int64]db.Collection, error) {
			return s.collectionMap(c, db.CollectionFilter{SiteID: site.ID})
		},
	})
}

// collectionMap loads collections by id.
func (s *Server) collectionMap(c echo.Context, f db.CollectionFilter) (map[int64]db.Collection, error) {
	list, err := s.store.Collections(c.Request().Context(), f)
	if err != nil {
		return nil, err
	}
	cols := make(map[int64]db.Collection, len(list))
	for _, col := range list {
		cols[col.ID] = col
	}
	return cols, nil
}

// collectionHome is the web page a collection stands for: a ResourceSync
// collection's describes URL; for SCP sections and ARC sitemaps, whose keys
// name documents rather than pages, the site itself.
func collectionHome(col db.Collection) string {
	if col.Protocol == harvest.ProtocolResourceSync {
		return col.Key
	}
	return col.SiteURL
}
