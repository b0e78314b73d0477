// Package db owns tidings' database, SQLite or PostgreSQL: the schema and
// its migrations, every SQL statement, and the transactions that keep a
// harvest atomic.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// Sentinel errors callers test with errors.Is.
var (
	ErrNotFound      = errors.New("db: not found")
	ErrAlreadyExists = errors.New("db: already exists")
)

// DB holds a writer pool and a small read-only pool. SQLite allows one
// writer at a time: its writer pool is a single connection, and immediate
// transactions on it avoid SQLITE_BUSY on read-to-write upgrades.
// PostgreSQL takes writes side by side, each transaction on a connection
// of its own (see openPostgres).
type DB struct {
	w   writer
	r   *sql.DB
	gen generation
	eng engine
	// ahead moves the database's clock forward, for tests that let a
	// lease run out without waiting for it (see clockMicros).
	ahead time.Duration
	// mine are the outbox messages this handle holds (see ClaimOutbox).
	mine heldClaims
	// upTo is the last migration step Open applies: all of them but in
	// tests that make a database of an older schema (openAt).
	upTo int
	// pgInsert is the INSERT of changes on PostgreSQL, built once from
	// the catalog (see changeInsert).
	pgInsert struct {
		mu     sync.Mutex
		q      string
		isBool bool
	}
}

// Open opens the database target names and applies pending migrations:
// a postgres:// or postgresql:// URL names a PostgreSQL database, anything
// else an SQLite file, created if needed.
func Open(ctx context.Context, target string) (*DB, error) {
	return openAt(ctx, target, len(migrations))
}

// openAt is Open with the schema migrated up to step upTo at most.
func openAt(ctx context.Context, target string, upTo int) (*DB, error) {
	if IsPostgres(target) {
		return openPostgres(ctx, target, upTo)
	}
	return openSQLite(ctx, target, upTo)
}

func openSQLite(ctx context.Context, path string, upTo int) (*DB, error) {
	base := "file:" + url.PathEscape(path) + "?_journal_mode=WAL&_busy_timeout=10000&_foreign_keys=on&_synchronous=NORMAL"
	w, err := sql.Open("sqlite3", base+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("db: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	d := &DB{upTo: upTo}
	d.w = writer{DB: w, gen: &d.gen}
	if err := d.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite3", base+"&_query_only=on")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("db: open %s read-only: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	d.r = r
	// Opened lazily by its first query, like the others.
	watch, err := sql.Open("sqlite3", base+"&_query_only=on")
	if err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("db: open %s to watch for writes: %w", path, err)
	}
	watch.SetMaxOpenConns(1)
	watch.SetConnMaxIdleTime(0)
	d.gen.watch = watch
	d.gen.versionSQL = "PRAGMA data_version"
	return d, nil
}

// Close closes the pools.
func (d *DB) Close() error {
	return errors.Join(d.gen.watch.Close(), d.r.Close(), d.w.Close())
}

// inTx runs fn in one immediate transaction on the writer.
func (d *DB) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := d.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	err = tx.Commit()
	d.gen.n.Add(1)
	return err
}

// txAttempts bounds the tries of a transaction that PostgreSQL aborted to
// break a deadlock or a serialization conflict with another writer: with
// a pool of writers (and several processes) two harvests may take the
// same rows in another order, and the one aborted is to be tried again,
// not lost.
const txAttempts = 3

// inTxRetry is inTx for a transaction fn that may run again whole (it
// sets, not adds to, what it leaves outside the transaction): it is
// tried again, after a short wait, when PostgreSQL aborted it for a
// deadlock or a serialization conflict.
func (d *DB) inTxRetry(ctx context.Context, fn func(*sql.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := d.inTx(ctx, fn)
		if err == nil || attempt == txAttempts || !retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 20 * time.Millisecond):
		}
	}
}

// retryable: PostgreSQL aborted the transaction for what another one
// held (SQLSTATE 40P01 deadlock_detected, 40001 serialization_failure).
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// timeFormat has a fixed width so that stored times sort as text and equal
// instants compare equal, which the changes uniqueness key relies on.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

// fmtTime formats t to the microsecond, which both engines keep (a
// PostgreSQL timestamptz has no finer part), so that a time written to
// either reads back the same.
func fmtTime(t time.Time) string { return t.UTC().Truncate(time.Microsecond).Format(timeFormat) }

// clockMicros is the SQL for the time now on the database's clock, in
// microseconds since 1970. Every lease and claim goes by it: processes
// on machines whose clocks differ still agree on when a claim ends,
// since only PostgreSQL's server, or for SQLite the one machine its
// processes share, tells the time. SQLite's clock has milliseconds, and
// gives one time to every call within one statement.
func (d *DB) clockMicros() string {
	now := d.eng.pick(`CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000`,
		`CAST(extract(epoch FROM clock_timestamp()) * 1000000 AS BIGINT)`)
	return fmt.Sprintf("(%s + %d)", now, d.ahead.Microseconds())
}

// clockTime is the SQL for the database's clock plus the microseconds
// that the SQL plus gives, as times are stored (timeFormat on SQLite, a
// timestamptz on PostgreSQL): the claims of discoveries and messages are
// in columns of stored times.
func (d *DB) clockTime(plus string) string {
	us := "(" + d.clockMicros() + " + " + plus + ")"
	return d.eng.pick(
		`(strftime('%Y-%m-%dT%H:%M:%S', `+us+` / 1000000, 'unixepoch') || printf('.%06d000Z', `+us+` % 1000000))`,
		`(TIMESTAMPTZ '1970-01-01 00:00:00+00' + `+us+` * INTERVAL '1 microsecond')`)
}

func fmtTimePtr(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return fmtTime(*t)
}

func parseTime(s string) (time.Time, error) {
	return time.Parse(timeFormat, s)
}

// nullTime scans a nullable stored time.
type nullTime struct{ t *time.Time }

func (n *nullTime) Scan(v any) error {
	if v == nil {
		n.t = nil
		return nil
	}
	var s string
	switch x := v.(type) {
	case time.Time:
		// PostgreSQL's timestamptz.
		t := x.UTC()
		n.t = &t
		return nil
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		return fmt.Errorf("db: time column holds %T", v)
	}
	t, err := parseTime(s)
	if err != nil {
		return err
	}
	n.t = &t
	return nil
}

// timeText scans a nullable stored time as SQLite stores it (timeFormat),
// whichever the engine: for code that compares stored times as text and
// hands them back as arguments, which both engines take.
type timeText struct {
	String string
	Valid  bool
}

func (t *timeText) Scan(v any) error {
	var n nullTime
	if err := n.Scan(v); err != nil {
		return err
	}
	*t = timeText{}
	if n.t != nil {
		*t = timeText{fmtTime(*n.t), true}
	}
	return nil
}

// timeCol scans a NOT NULL stored time.
type timeCol struct{ t *time.Time }

func (c timeCol) Scan(v any) error {
	var n nullTime
	if err := n.Scan(v); err != nil {
		return err
	}
	if n.t == nil {
		return errors.New("db: unexpected NULL time")
	}
	*c.t = *n.t
	return nil
}

func isUnique(err error) bool {
	var se sqlite3.Error
	var pe *pgconn.PgError
	return errors.As(err, &se) && (se.ExtendedCode == sqlite3.ErrConstraintUnique || se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey) ||
		errors.As(err, &pe) && pe.Code == pgUniqueViolation
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(...any) error }

// queryAll runs a read query and scans every row with scan.
func queryAll[T any](ctx context.Context, d *DB, what, query string, scan func(scanner) (T, error), args ...any) ([]T, error) {
	rows, err := d.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("db: %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("db: %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("db: %s: %w", what, err)
	}
	return out, nil
}

// Ping checks that the database answers a query.
func (d *DB) Ping(ctx context.Context) error {
	var one int
	if err := d.r.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("db: not answering: %w", err)
	}
	return nil
}
