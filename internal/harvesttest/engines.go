package harvesttest

import (
	"path/filepath"
	"sync"
	"testing"

	"tidings/internal/pgtest"
)

// The database engines an end-to-end test may run on.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// chosen holds the engine OnEachEngine gave each of its subtests.
var chosen sync.Map // testing.TB -> string

// OnEachEngine runs test once on SQLite and once on PostgreSQL, as the
// subtests "sqlite" and "postgres": New, and what calls it, opens the
// subtest's engine. Without TIDINGS_TEST_POSTGRES the PostgreSQL subtest
// skips, saying how to run it.
func OnEachEngine(t *testing.T, test func(t *testing.T)) {
	t.Helper()
	for _, engine := range []string{SQLite, Postgres} {
		t.Run(engine, func(t *testing.T) {
			chosen.Store(t, engine)
			t.Cleanup(func() { chosen.Delete(t) })
			test(t)
		})
	}
}

// Target returns the --db value of a new, empty database for t: of the
// engine OnEachEngine gave it, else as pgtest.Target picks.
func Target(t testing.TB) string {
	t.Helper()
	switch engine, _ := chosen.Load(t); engine {
	case Postgres:
		return pgtest.NewDatabase(t)
	case SQLite:
		return filepath.Join(t.TempDir(), "tidings.db")
	}
	return pgtest.Target(t)
}
