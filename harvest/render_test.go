package harvest_test

import (
	"testing"

	"tidings/db"
	"tidings/internal/harvesttest"
)

// collectionAtom renders a collection's feed as readers get it.
func collectionAtom(t *testing.T, store *db.DB, id int64, perPage bool) string {
	t.Helper()
	return harvesttest.CollectionAtom(t, store, id, perPage)
}
