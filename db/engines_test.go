package db

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"tidings/internal/pgtest"
)

// testPostgres is set while the suite runs its second round, on
// PostgreSQL: every test runs on each engine, the same code against a
// fresh database of its own.
var testPostgres bool

func TestMain(m *testing.M) {
	code := m.Run()
	server, err := pgtest.Server()
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		code = 1
	case server == "":
		fmt.Println(pgtest.How)
	default:
		fmt.Println("db: the same tests again, on PostgreSQL")
		testPostgres = true
		code = max(code, m.Run())
	}
	os.Exit(code)
}

// newTarget returns a --db value for a new, empty database of the round's
// engine.
func newTarget(t testing.TB) string {
	t.Helper()
	if testPostgres {
		return pgtest.NewDatabase(t)
	}
	return filepath.Join(t.TempDir(), "tidings.db")
}

// sqliteOnly skips a test that reaches into SQLite itself (its pragmas,
// files or older schemas) in the PostgreSQL round.
func sqliteOnly(t *testing.T) {
	t.Helper()
	if testPostgres {
		t.Skip("SQLite only")
	}
}

// schemaVersion reads the schema version where the engine keeps it.
func schemaVersion(t *testing.T, d *DB) int {
	t.Helper()
	var v int
	err := d.r.QueryRowContext(context.Background(), d.eng.pick("PRAGMA user_version", "SELECT version FROM schema_version")).Scan(&v)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// setSchemaVersion sets the schema version where the engine keeps it.
func setSchemaVersion(t *testing.T, d *DB, v int) {
	t.Helper()
	_, err := d.w.ExecContext(context.Background(), d.eng.pick(fmt.Sprintf("PRAGMA user_version = %d", v), fmt.Sprintf("UPDATE schema_version SET version = %d", v)))
	if err != nil {
		t.Fatal(err)
	}
}

// TestRebind: SQLite's placeholders become PostgreSQL's, numbered as
// SQLite numbers them, and quoted text and comments keep their question
// marks.
func TestRebind(t *testing.T) {
	tests := []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`a = ? AND b = ?`, `a = $1 AND b = $2`},
		{`a = ?1 OR b = ?1 OR c = ?2`, `a = $1 OR b = $1 OR c = $2`},
		{`a = ?2 AND b = ?`, `a = $2 AND b = $3`},
		{`x = '?' AND y = ? AND z = 'it''s ?'`, `x = '?' AND y = $1 AND z = 'it''s ?'`},
		{`"odd?name" = ?`, `"odd?name" = $1`},
		{"-- why? because\nx = ?", "-- why? because\nx = $1"},
		{`x = 'unterminated ?`, `x = 'unterminated ?`},
	}
	for _, tt := range tests {
		if got := rebind(tt.in); got != tt.want {
			t.Errorf("rebind(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDuplicatesInOneHarvest: a change listed twice in one harvest is
// stored and counted once, on either engine (PostgreSQL inserts many in
// one statement).
func TestDuplicatesInOneHarvest(t *testing.T) {
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	a := Change{URL: "https://shrine.example/a", Kind: "updated", Datetime: at}
	old := Change{URL: "https://shrine.example/b", Kind: "created", Datetime: at.AddDate(-1, 0, 0), History: true}
	run := storeRun(t, d, col, at, "", a, old, a, old, a)
	if run.Changes != 1 || run.Backfilled != 1 {
		t.Errorf("stored %d changes and %d history; want 1 and 1", run.Changes, run.Backfilled)
	}
}

// TestPostgresWritesSideBySide: on PostgreSQL as many transactions as
// the writer pool holds are open at once, each having written, and all
// commit; on SQLite, whose single writer makes them take turns, this
// would never get past the first.
func TestPostgresWritesSideBySide(t *testing.T) {
	if !testPostgres {
		t.Skip("PostgreSQL only: SQLite has one writer")
	}
	ctx := context.Background()
	d, _ := openTest(t)
	release := make(chan struct{})
	wrote := make(chan int, postgresWriters)
	errs := make(chan error, postgresWriters)
	for i := range postgresWriters {
		go func() {
			errs <- d.inTx(ctx, func(tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, 'side by side', ?)`,
					fmt.Sprintf("writer %d", i), fmtTime(time.Now())); err != nil {
					return err
				}
				wrote <- i
				<-release
				return nil
			})
		}()
	}
	for n := range postgresWriters {
		select {
		case <-wrote:
		case err := <-errs:
			t.Fatalf("a writer ended before the others were released: %v", err)
		case <-time.After(time.Minute):
			close(release)
			t.Fatalf("%d of %d transactions were open at once; the others waited for a writer", n, postgresWriters)
		}
	}
	close(release)
	for range postgresWriters {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	var n int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM settings WHERE value = 'side by side'`).Scan(&n); err != nil || n != postgresWriters {
		t.Errorf("%d rows committed, %v; want %d", n, err, postgresWriters)
	}
}

// TestPostgresDeadlockIsTriedAgain: two writers take two rows in
// opposite orders, so PostgreSQL aborts one of them to break the
// deadlock; the aborted transaction is tried again and both commit.
func TestPostgresDeadlockIsTriedAgain(t *testing.T) {
	if !testPostgres {
		t.Skip("PostgreSQL only: SQLite has one writer")
	}
	ctx := context.Background()
	d, _ := openTest(t)
	for _, k := range []string{"deadlock a", "deadlock b"} {
		if _, err := d.w.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, '0', ?)`, k, fmtTime(time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	tries := 0
	var first sync.WaitGroup
	first.Add(2)
	both := func(one, other string) error {
		attempt := 0
		return d.inTxRetry(ctx, func(tx *sql.Tx) error {
			attempt++
			mu.Lock()
			tries++
			mu.Unlock()
			if _, err := tx.ExecContext(ctx, `UPDATE settings SET value = value || '+' WHERE key = ?`, one); err != nil {
				return err
			}
			if attempt == 1 {
				// Each holds its first row before either asks for its
				// second: a deadlock, every time.
				first.Done()
				first.Wait()
			}
			_, err := tx.ExecContext(ctx, `UPDATE settings SET value = value || '+' WHERE key = ?`, other)
			return err
		})
	}
	errs := make(chan error, 2)
	go func() { errs <- both("deadlock a", "deadlock b") }()
	go func() { errs <- both("deadlock b", "deadlock a") }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a writer failed: %v", err)
		}
	}
	if tries != 3 {
		t.Errorf("%d transactions run, want 3: both, and the one aborted again", tries)
	}
	for _, k := range []string{"deadlock a", "deadlock b"} {
		var v string
		if err := d.r.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, k).Scan(&v); err != nil || v != "0++" {
			t.Errorf("%s = %q, %v; want both writers' marks, 0++", k, v, err)
		}
	}
}
