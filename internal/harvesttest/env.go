package harvesttest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/fixturesite"
)

// Quiet turns page snapshots off when o sets none: the fixture sites
// serve the change information, not the pages, and the tests count what
// is fetched and warned about. Page snapshots have tests of their own,
// which set Snapshots.
func Quiet(o harvest.Options) harvest.Options {
	if o.Snapshots == (harvest.SnapshotSettings{}) {
		o.Snapshots.Off = true
	}
	return o
}

// Env is a harvester over a fresh store, with page snapshots off (see
// Quiet), and the fixture site (internal/fixturesite).
type Env struct {
	T     *testing.T
	Site  *fixturesite.Site
	Store *db.DB
	H     *harvest.Harvester
}

// NewEnv starts the fixture site and a harvester with options o.
func NewEnv(t *testing.T, o harvest.Options) *Env {
	t.Helper()
	site := fixturesite.New(time.Now())
	t.Cleanup(site.Close)
	store, h := New(t, Quiet(o))
	return &Env{T: t, Site: site, Store: store, H: h}
}

// Follow follows the fixture site from its /shrine/ page.
func (e *Env) Follow() *harvest.SiteReport {
	e.T.Helper()
	return Follow(e.T, e.H, e.Site.URL+"/shrine/")
}

// Harvest harvests the fixture site, followed before.
func (e *Env) Harvest() *harvest.SiteReport {
	e.T.Helper()
	return HarvestSite(e.T, e.Store, e.H, e.Site.URL+"/")
}

// Changes returns every stored change by its collection's key, relative
// to the site.
func (e *Env) Changes() map[string][]db.ExportedChange {
	e.T.Helper()
	out := map[string][]db.ExportedChange{}
	err := e.Store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		key := strings.TrimPrefix(c.CollectionKey, e.Site.URL)
		out[key] = append(out[key], c)
		return nil
	})
	if err != nil {
		e.T.Fatal(err)
	}
	return out
}

// Follow follows the site at u, failing the test on an error.
func Follow(t testing.TB, h *harvest.Harvester, u string) *harvest.SiteReport {
	t.Helper()
	rep, err := h.Follow(context.Background(), u)
	if err != nil {
		t.Fatalf("follow: %v", err)
	}
	return rep
}

// HarvestSite harvests the stored site whose root is root.
func HarvestSite(t testing.TB, store *db.DB, h *harvest.Harvester, root string) *harvest.SiteReport {
	t.Helper()
	site, err := store.SiteByURL(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := h.HarvestSite(context.Background(), site)
	if err != nil {
		t.Fatalf("harvest: %v", err)
	}
	return rep
}

// SiteID is the id of the stored site whose root is root.
func SiteID(t testing.TB, store *db.DB, root string) int64 {
	t.Helper()
	s, err := store.SiteByURL(context.Background(), root)
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", root, err))
	}
	return s.ID
}

// Collection returns the report of the collection whose key ends in key.
func Collection(t testing.TB, rep *harvest.SiteReport, key string) harvest.CollectionReport {
	t.Helper()
	for _, c := range rep.Collections {
		if strings.HasSuffix(c.Collection.Key, key) {
			return c
		}
	}
	t.Fatalf("no collection %s in report", key)
	return harvest.CollectionReport{}
}

// FindChange returns the change of url of that kind, or nil.
func FindChange(list []db.ExportedChange, url, kind string) *db.ExportedChange {
	for i := range list {
		if list[i].URL == url && list[i].Kind == kind {
			return &list[i]
		}
	}
	return nil
}

// StoredURLs lists the pages of every stored change, sorted, without
// base.
func StoredURLs(t testing.TB, store *db.DB, base string) []string {
	t.Helper()
	var out []string
	err := store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		out = append(out, strings.TrimPrefix(c.URL, base))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
