package web

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feeds"
)

// feedID reads "<id>.atom" from the path.
func feedID(c echo.Context) (int64, error) {
	name, ok := strings.CutSuffix(c.Param("file"), ".atom")
	id, err := strconv.ParseInt(name, 10, 64)
	// One feed, one URL: "01.atom" and "+1.atom" are not aliases.
	if !ok || err != nil || id <= 0 || strconv.FormatInt(id, 10) != name {
		return 0, echo.NewHTTPError(http.StatusNotFound, "No such feed.")
	}
	return id, nil
}

func (s *Server) collectionFeed(c echo.Context) error {
	id, err := feedID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	col, err := s.store.CollectionByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "No such feed.")
	}
	if err != nil {
		return err
	}
	f := &feeds.Feed{
		ID:           s.tag(col.CreatedAt, fmt.Sprintf("collection/%d", col.ID)),
		Title:        col.Title,
		Subtitle:     "Changes to " + col.Key + ", as its ResourceSync change list tells them",
		Updated:      feedUpdated(col.LastHarvestAt, col.CreatedAt),
		SelfURL:      s.abs(CollectionFeedPath(col.ID)),
		AlternateURL: col.Key,
	}
	cols := map[int64]db.Collection{col.ID: col}
	if err := s.fillEntries(c, f, db.Scope{CollectionID: col.ID}, cols); err != nil {
		return err
	}
	return writeFeed(c, f)
}

func (s *Server) siteFeed(c echo.Context) error {
	id, err := feedID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	site, err := s.store.SiteByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "No such feed.")
	}
	if err != nil {
		return err
	}
	list, err := s.store.Collections(ctx, db.CollectionFilter{SiteID: site.ID})
	if err != nil {
		return err
	}
	cols := map[int64]db.Collection{}
	for _, col := range list {
		cols[col.ID] = col
	}
	title := site.Title
	if title == "" {
		title = site.URL
	}
	f := &feeds.Feed{
		ID:           s.tag(site.CreatedAt, fmt.Sprintf("site/%d", site.ID)),
		Title:        title,
		Subtitle:     "Changes to every collection of " + site.URL,
		Updated:      feedUpdated(site.LastHarvestAt, site.CreatedAt),
		SelfURL:      s.abs(SiteFeedPath(site.ID)),
		AlternateURL: site.URL,
	}
	if err := s.fillEntries(c, f, db.Scope{SiteID: site.ID}, cols); err != nil {
		return err
	}
	return writeFeed(c, f)
}

// fillEntries adds the scope's digest entries, or with ?entries=page one
// entry per change.
func (s *Server) fillEntries(c echo.Context, f *feeds.Feed, scope db.Scope, cols map[int64]db.Collection) error {
	ctx := c.Request().Context()
	if c.QueryParam("entries") == "page" {
		f.SelfURL += "?entries=page"
		changes, err := s.store.FeedChanges(ctx, scope, s.opts.FeedEntries)
		if err != nil {
			return err
		}
		for _, ch := range changes {
			f.Entries = append(f.Entries, s.pageEntry(ch, cols[ch.CollectionID]))
		}
		return nil
	}
	digests, err := s.store.Digests(ctx, scope, s.opts.FeedEntries)
	if err != nil {
		return err
	}
	for _, d := range digests {
		f.Entries = append(f.Entries, s.digestEntry(d, cols[d.Run.CollectionID]))
	}
	return nil
}

// digestEntry is IFCC-0001 step 5: one entry summarising a harvest run.
func (s *Server) digestEntry(d db.Digest, col db.Collection) feeds.Entry {
	items := make([]feeds.DigestItem, len(d.Changes))
	for i, ch := range d.Changes {
		items[i] = feeds.DigestItem{URL: ch.URL, Kind: ch.Kind, Datetime: ch.Datetime, Title: ch.Title}
	}
	return feeds.Entry{
		ID:          s.tag(col.CreatedAt, fmt.Sprintf("collection/%d/run/%d", col.ID, d.Run.ID)),
		Title:       feeds.DigestTitle(col.Title, items),
		Updated:     d.Run.FinishedAt,
		Link:        col.Key,
		ContentHTML: feeds.DigestHTML(items),
	}
}

func (s *Server) pageEntry(ch db.Change, col db.Collection) feeds.Entry {
	name := ch.Title
	if name == "" {
		name = ch.URL
	}
	item := feeds.DigestItem{URL: ch.URL, Kind: ch.Kind, Datetime: ch.Datetime, Title: ch.Title}
	return feeds.Entry{
		ID:          s.tag(col.CreatedAt, fmt.Sprintf("collection/%d/change/%d", col.ID, ch.ID)),
		Title:       kindTitle(ch.Kind) + ": " + name,
		Updated:     ch.Datetime,
		Link:        ch.URL,
		ContentHTML: feeds.DigestHTML([]feeds.DigestItem{item}),
		Summary:     ch.Summary,
	}
}

func kindTitle(kind string) string {
	switch kind {
	case "created":
		return "Created"
	case "deleted":
		return "Deleted"
	}
	return "Updated"
}

// tag builds entry and feed ids from stored ids and dates only, so they
// survive restarts and re-harvests.
func (s *Server) tag(date time.Time, specific string) string {
	return feeds.TagURI(s.base.Host, date, specific)
}

func feedUpdated(last *time.Time, created time.Time) time.Time {
	if last != nil {
		return *last
	}
	return created
}

func writeFeed(c echo.Context, f *feeds.Feed) error {
	var buf bytes.Buffer
	if err := feeds.WriteAtom(&buf, f); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "application/atom+xml; charset=utf-8", buf.Bytes())
}
