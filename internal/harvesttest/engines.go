package harvesttest

import (
	"os"
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

// EngineEnv names the engine New uses for the tests that choose none:
// TIDINGS_TEST_ENGINE=postgres runs a whole package's harvests on
// PostgreSQL (with TIDINGS_TEST_POSTGRES set).
const EngineEnv = "TIDINGS_TEST_ENGINE"

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

// Target returns the --db value of a new, empty database for t: an
// SQLite file in its temporary directory, or on PostgreSQL a database of
// its own, dropped when it ends.
func Target(t testing.TB) string {
	t.Helper()
	engine, _ := chosen.Load(t)
	if engine == nil {
		engine = os.Getenv(EngineEnv)
	}
	if engine == Postgres {
		return pgtest.NewDatabase(t)
	}
	return filepath.Join(t.TempDir(), "tidings.db")
}
