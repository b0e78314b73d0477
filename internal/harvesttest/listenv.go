package harvesttest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/sitemapsite"
)

// ListEnv is a harvester over a fresh store that reads pages, with a
// clock the test moves, and a static site (sitemapsite) whose versions the
// test sets: the ground of the tests of sources that list pages.
type ListEnv struct {
	T     testing.TB
	Site  *sitemapsite.Site
	Store *db.DB
	H     *harvest.Harvester
	Now   time.Time
}

// NewListEnv starts a ListEnv on 2026-11-20 10:00 UTC. Options without
// snapshot settings read pages within the default budget; o.Now is the
// env's clock.
func NewListEnv(t testing.TB, o harvest.Options) *ListEnv {
	t.Helper()
	if o.Snapshots == (harvest.SnapshotSettings{}) {
		o.Snapshots.PageFetches = harvest.DefaultPageFetches
	}
	e := &ListEnv{T: t, Site: sitemapsite.New(), Now: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)}
	t.Cleanup(e.Site.Close)
	o.Now = func() time.Time { return e.Now }
	e.Store, e.H = New(t, o)
	return e
}

// Harvest harvests the site a day later.
func (e *ListEnv) Harvest() *harvest.SiteReport {
	e.T.Helper()
	e.Now = e.Now.Add(24 * time.Hour)
	return HarvestSite(e.T, e.Store, e.H, e.Site.URL("/"))
}

// Changes lists the stored changes as "kind path", sorted.
func (e *ListEnv) Changes() []string {
	e.T.Helper()
	var out []string
	err := e.Store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		out = append(out, c.Kind+" "+strings.TrimPrefix(c.URL, e.Site.Srv.URL))
		return nil
	})
	if err != nil {
		e.T.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// ActiveSources lists the sources of the store's active collections,
// sorted.
func ActiveSources(t testing.TB, store *db.DB) []string {
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
