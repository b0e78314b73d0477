package db

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

// OtherWritersDelay bounds how late Generation notices a write made by
// another process (tidings harvest or follow beside serve): it asks
// SQLite at most this often. Writes through this DB are noticed at once.
const OtherWritersDelay = 100 * time.Millisecond

// writer is the writer pool. Every statement run through it advances the
// generation once it has returned, so that a reader who saw the old
// generation cannot have missed the write.
type writer struct {
	*sql.DB
	gen *generation
}

// ExecContext runs a statement on the writer, then advances the generation.
func (w writer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := w.DB.ExecContext(ctx, query, args...)
	w.gen.n.Add(1)
	return res, err
}

// insert runs an INSERT … RETURNING id on the writer, then advances the
// generation. RETURNING rather than LastInsertId: PostgreSQL has no such
// thing, and SQLite returns the same id.
func (w writer) insert(ctx context.Context, query string, args ...any) (int64, error) {
	var id int64
	err := w.DB.QueryRowContext(ctx, query, args...).Scan(&id)
	w.gen.n.Add(1)
	return id, err
}

// generation counts the database's possible changes: writes through this
// DB, and commits by other connections seen through SQLite's data_version,
// which changes whenever another connection commits (on PostgreSQL, the
// current snapshot, which changes whenever a transaction that wrote ends).
type generation struct {
	n      atomic.Uint64
	polled atomic.Int64 // unix nanoseconds of the last data_version read

	mu         sync.Mutex // one reader of data_version at a time
	watch      *sql.DB    // one connection of its own: data_version is per connection
	versionSQL string     // reads a value that moves when another connection commits
	version    string
	known      bool
}

// Generation returns a number that changes whenever what the database
// holds may have changed: a cache filled from reads begun after a call
// that returned g stays current while Generation keeps returning g. It
// costs no query except, at most every OtherWritersDelay, one PRAGMA.
func (d *DB) Generation(ctx context.Context) uint64 {
	g := &d.gen
	now := time.Now().UnixNano()
	if now-g.polled.Load() >= int64(OtherWritersDelay) && g.mu.TryLock() {
		g.poll(ctx, now)
		g.mu.Unlock()
	}
	return g.n.Load()
}

// poll reads data_version and advances the generation when it moved, or
// when it cannot be read: not knowing must not mean unchanged.
func (g *generation) poll(ctx context.Context, now int64) {
	var v string
	err := g.watch.QueryRowContext(ctx, g.versionSQL).Scan(&v)
	if err != nil || !g.known || v != g.version {
		g.n.Add(1)
	}
	g.version, g.known = v, err == nil
	g.polled.Store(now)
}
