package db

import (
	"context"
	"database/sql/driver"
	"errors"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// ErrUnavailable marks an error as the database being out of reach for a
// while (down, restarting, unreachable, or too busy to answer), rather
// than a fault of the request. IsUnavailable reports it, and also
// recognises the drivers' own errors that mean the same, so that code
// which wraps with it and code which does not are told apart the same way.
var ErrUnavailable = errors.New("db: the database is unavailable")

// IsUnavailable reports whether err says the database could not be
// reached or did not answer in time: an outage a caller should answer
// with "try again later", not with a failure of its own. A request
// canceled by its caller is not one.
func IsUnavailable(err error) bool {
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return false
	case errors.Is(err, ErrUnavailable),
		// The pool gave up waiting for a connection, or a query for its
		// answer.
		errors.Is(err, context.DeadlineExceeded),
		// database/sql hands this back once its retries on dead
		// connections are spent.
		errors.Is(err, driver.ErrBadConn),
		errors.Is(err, pgconn.ErrConnClosed):
		return true
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.Timeout(err) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pgUnavailable(pe.Code)
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrCantOpen:
			return true
		}
		return false
	}
	// Refused, reset or timed out: only the PostgreSQL driver speaks over
	// a network.
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	// A store closed under a request: the process is shutting down.
	// database/sql has no sentinel for it, only this text.
	return strings.Contains(err.Error(), "sql: database is closed")
}

// pgUnavailable tells the SQLSTATEs of a server that cannot serve now: a
// connection exception (class 08), a server shutting down or starting up
// (57P01-57P03), or one at its connection limit (53300).
func pgUnavailable(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300":
		return true
	}
	return strings.HasPrefix(code, "08")
}
