package harvest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"tidings/db"
	"tidings/fetch"
	"tidings/internal/pgtest"
)

// testHarvester opens a fresh database and a harvester over it whose client
// may fetch from loopback, for the tests' own sites.
func testHarvester(t *testing.T, o Options) (*db.DB, *Harvester) {
	t.Helper()
	store, err := db.Open(context.Background(), pgtest.Target(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	if o.Snapshots == (SnapshotSettings{}) {
		// The fixture sites serve the change information, not the pages,
		// and these tests count what is fetched and warned about: page
		// snapshots have tests of their own, which set Snapshots.
		o.Snapshots.Off = true
	}
	return store, New(client, store, o)
}

// followURL follows the site at u, failing the test on an error.
func followURL(t *testing.T, h *Harvester, u string) *SiteReport {
	t.Helper()
	rep, err := h.Follow(context.Background(), u)
	if err != nil {
		t.Fatalf("follow: %v", err)
	}
	return rep
}

// harvestURL harvests the stored site whose root is root.
func harvestURL(t *testing.T, store *db.DB, h *Harvester, root string) *SiteReport {
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

// ProtocolResourceSync is resourcesync.Name, which the tests of the
// sources still in this package cannot import: they follow sites that
// publish ResourceSync too (see sources_test.go).
const ProtocolResourceSync = "resourcesync"

// collectionRun returns the report of the collection whose key ends in
// key.
func collectionRun(t *testing.T, rep *SiteReport, key string) CollectionReport {
	t.Helper()
	for _, c := range rep.Collections {
		if strings.HasSuffix(c.Collection.Key, key) {
			return c
		}
	}
	t.Fatalf("no collection %s in report", key)
	return CollectionReport{}
}

// siteID is the id of the stored site whose root is root.
func siteID(t *testing.T, store *db.DB, root string) int64 {
	t.Helper()
	s, err := store.SiteByURL(context.Background(), root)
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", root, err))
	}
	return s.ID
}
