package harvesttest

import (
	"context"
	"strings"
	"testing"

	"tidings/db"
	"tidings/harvest"
)

// Follow follows the site at u, failing the test on an error.
func Follow(t testing.TB, h *harvest.Harvester, u string) *harvest.SiteReport {
	t.Helper()
	rep, err := h.Follow(context.Background(), u)
	if err != nil {
		t.Fatalf("follow: %v", err)
	}
	return rep
}

// Harvest harvests the stored site whose root is root, failing the test
// on an error.
func Harvest(t testing.TB, store *db.DB, h *harvest.Harvester, root string) *harvest.SiteReport {
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

// CollectionRun returns the report of the collection whose key ends in
// key, failing the test when the site's report has none.
func CollectionRun(t testing.TB, rep *harvest.SiteReport, key string) harvest.CollectionReport {
	t.Helper()
	for _, c := range rep.Collections {
		if strings.HasSuffix(c.Collection.Key, key) {
			return c
		}
	}
	t.Fatalf("no collection %s in report", key)
	return harvest.CollectionReport{}
}
