package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// engine is the kind of database a DB speaks to.
type engine int

const (
	sqliteEngine engine = iota
	postgresEngine
)

// pick returns the statement spelled for e: the queries written once use
// SQLite's dialect, which the PostgreSQL driver below takes as it is but
// for its placeholders; the few that differ name both spellings here.
func (e engine) pick(sqlite, postgres string) string {
	if e == postgresEngine {
		return postgres
	}
	return sqlite
}

// flag is the SQL for "the boolean column col holds yes". SQLite stores a
// flag as 1, and uses a partial index on one (runs_following) only for a
// query spelled as the index is, col = 1; PostgreSQL's is a boolean.
func (e engine) flag(col string) string {
	return e.pick(col+" = 1", col)
}

// pgUniqueViolation is PostgreSQL's SQLSTATE for a unique constraint.
const pgUniqueViolation = "23505"

// IsPostgres reports whether a --db value names a PostgreSQL database
// rather than an SQLite file.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// Redact returns a --db value fit for a log or an error: a URL's password
// is replaced by xxxxx.
func Redact(target string) string {
	if !IsPostgres(target) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		return "(a PostgreSQL URL that does not parse)"
	}
	return u.Redacted()
}

// postgresWriters is how many writes a process runs on PostgreSQL at once:
// as many as the harvest workers a process is commonly given, and few
// enough that several processes stay well within the server's 100
// connections by default.
const postgresWriters = 8

// openPostgres opens a PostgreSQL database: a pool of connections for
// writes, since PostgreSQL, unlike SQLite, runs them side by side (every
// write is a statement or a transaction whose conditions hold at its
// commit whatever else commits meanwhile: the same rules that let
// several processes share the database); a pool of read-only connections
// for reads; and a connection that watches for other processes' commits.
func openPostgres(ctx context.Context, target string, upTo int) (*DB, error) {
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, fmt.Errorf("db: %s: %w", Redact(target), err)
	}
	open := func(readOnly bool, conns int) *sql.DB {
		c := cfg.Copy()
		if readOnly {
			c.RuntimeParams["default_transaction_read_only"] = "on"
		}
		p := sql.OpenDB(pgConnector{stdlib.GetConnector(*c)})
		p.SetMaxOpenConns(conns)
		p.SetMaxIdleConns(conns)
		return p
	}
	d := &DB{eng: postgresEngine, upTo: upTo}
	w := open(false, postgresWriters)
	d.w = writer{DB: w, gen: &d.gen}
	if err := d.migrate(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("%w (database %s)", err, Redact(target))
	}
	d.r = open(true, 8)
	d.gen.watch = open(true, 1)
	// The snapshot lists the transactions in progress: it moves when one
	// that wrote commits, and reads leave it alone.
	d.gen.versionSQL = "SELECT pg_current_snapshot()::text"
	return d, nil
}

// migratePostgres applies the pending steps, each in its own transaction
// under an advisory lock, so that processes started together take turns
// as they do on SQLite.
func (d *DB) migratePostgres(ctx context.Context) error {
	for {
		done := false
		err := d.inTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(2026112526)`); err != nil {
				return fmt.Errorf("db: wait for other migrations: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)`); err != nil {
				return fmt.Errorf("db: create schema_version: %w", err)
			}
			var v int
			err := tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
			if errors.Is(err, sql.ErrNoRows) {
				_, err = tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`)
			}
			if err != nil {
				return fmt.Errorf("db: read schema version: %w", err)
			}
			if err := checkVersion(v); err != nil || v >= d.upTo {
				done = true
				return err
			}
			if err := migrations[v].run(ctx, tx, postgresEngine); err != nil {
				return fmt.Errorf("db: migration %d: %w", v+1, err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, v+1); err != nil {
				return fmt.Errorf("db: migration %d: %w", v+1, err)
			}
			return nil
		})
		if done || err != nil {
			return err
		}
	}
}

// pgConnector makes connections of pgx's database/sql driver that take
// the SQLite spelling of placeholders, so that a query is written once for
// both engines.
type pgConnector struct{ driver.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return pgConn{conn.(*stdlib.Conn)}, nil
}

// pgConn rebinds placeholders and passes everything else to pgx.
type pgConn struct{ *stdlib.Conn }

func (c pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

// rebind turns SQLite's placeholders, ? and ?NNN, into PostgreSQL's $N,
// numbered as SQLite numbers them (a bare ? is one more than the largest
// number before it), leaving quoted text and comments alone.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\'' || c == '"':
			end := strings.IndexByte(q[i+1:], c)
			if end < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+end+2])
			i += end + 1
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+end])
			i += end - 1
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			k := n + 1
			if j > i+1 {
				k, _ = strconv.Atoi(q[i+1 : j])
			}
			n = max(n, k)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(k))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
