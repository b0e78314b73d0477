package resourcesync_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// rsXMLNS binds the namespaces of a ResourceSync document.
const rsXMLNS = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`

// listEnv is a harvester over a fresh store that reads pages, with a
// clock the test moves, and a static site whose pages the test sets.
type listEnv struct {
	t     *testing.T
	site  *sitemapsite.Site
	store *db.DB
	h     *harvest.Harvester
	now   time.Time
}

func newListEnv(t *testing.T) *listEnv {
	t.Helper()
	e := &listEnv{t: t, site: sitemapsite.New(), now: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)}
	t.Cleanup(e.site.Close)
	e.store, e.h = harvesttest.New(t, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: harvest.DefaultPageFetches},
		Now: func() time.Time { return e.now }})
	return e
}

// harvest harvests the site a day later.
func (e *listEnv) harvest() *harvest.SiteReport {
	e.t.Helper()
	e.now = e.now.Add(24 * time.Hour)
	return harvesttest.HarvestSite(e.t, e.store, e.h, e.site.URL("/"))
}

// changes lists the stored changes as "kind path", sorted.
func (e *listEnv) changes() []string {
	e.t.Helper()
	var out []string
	err := e.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		out = append(out, c.Kind+" "+strings.TrimPrefix(c.URL, e.site.Srv.URL))
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// activeProtocols lists the sources of the active collections, sorted.
func activeProtocols(t *testing.T, store *db.DB) []string {
	t.Helper()
	cols, err := store.Collections(context.Background(), db.CollectionFilter{ActiveOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cols {
		out = append(out, c.Protocol)
	}
	slices.Sort(out)
	return out
}

// warningsOf lists the collections' warnings and errors.
func warningsOf(rep *harvest.SiteReport) []string {
	var w []string
	for _, c := range rep.Collections {
		w = append(w, c.Run.Warnings...)
		if c.Run.Error != "" {
			w = append(w, "error: "+c.Run.Error)
		}
	}
	return w
}

// shrine is version 1 of a small generated site: every page lists every
// other in its navigation.
func shrine() map[string]sitemapsite.Page {
	return map[string]sitemapsite.Page{
		"/":   {Title: "The Shrine", Text: "Welcome to my shrine to moths.\nPlease sign the guestbook."},
		"/a/": {Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about a week."},
		"/b/": {Title: "Atlas moth", Text: "The atlas moth is one of the largest moths."},
		"/c/": {Title: "Links", Text: "Other moth shrines I like."},
		"/d/": {Title: "Old news", Text: "This page will go away."},
	}
}

// shrine2 is version 2: /a/ was edited, /d/ removed, /e/ added; /b/ and
// /c/ differ only in their navigation and footer, like every page.
func shrine2() map[string]sitemapsite.Page {
	v := shrine()
	v["/a/"] = sitemapsite.Page{Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about ten days."}
	delete(v, "/d/")
	v["/e/"] = sitemapsite.Page{Title: "Guestbook", Text: "Thank you for visiting."}
	return v
}
