package db

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// TestUnavailableTellsOutagesFromFaults: the errors of a database that
// cannot answer now are told apart from those of a request that is wrong,
// however deep they are wrapped.
func TestUnavailableTellsOutagesFromFaults(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("db: load site 3: %w", err) }
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"not found", ErrNotFound, false},
		{"already exists", wrap(ErrAlreadyExists), false},
		{"marked unavailable", wrap(ErrUnavailable), true},
		{"a canceled request", wrap(context.Canceled), false},
		{"no answer in time", wrap(context.DeadlineExceeded), true},
		{"SQLite busy", wrap(sqlite3.Error{Code: sqlite3.ErrBusy}), true},
		{"SQLite locked", wrap(sqlite3.Error{Code: sqlite3.ErrLocked}), true},
		{"SQLite cannot open", wrap(sqlite3.Error{Code: sqlite3.ErrCantOpen}), true},
		{"SQLite constraint", wrap(sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintUnique}), false},
		{"PostgreSQL shutting down", wrap(&pgconn.PgError{Code: "57P01"}), true},
		{"PostgreSQL starting up", wrap(&pgconn.PgError{Code: "57P03"}), true},
		{"PostgreSQL connection failure", wrap(&pgconn.PgError{Code: "08006"}), true},
		{"PostgreSQL too many connections", wrap(&pgconn.PgError{Code: "53300"}), true},
		{"PostgreSQL unique violation", wrap(&pgconn.PgError{Code: "23505"}), false},
		{"PostgreSQL syntax error", wrap(&pgconn.PgError{Code: "42601"}), false},
		{"a bug", errors.New("db: time column holds int"), false},
	} {
		if got := IsUnavailable(tc.err); got != tc.want {
			t.Errorf("%s (%v): IsUnavailable = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestUnavailableOfRealOutages: a store closed under its callers and a
// PostgreSQL server nothing answers for are unavailable, as their drivers
// report them.
func TestUnavailableOfRealOutages(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	if err := d.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SiteByPublicID(ctx, "0123456789abcdef0123456789abcdef"); IsUnavailable(err) || !errors.Is(err, ErrNotFound) {
		t.Errorf("a site not found: %v, unavailable %v", err, IsUnavailable(err))
	}
	d.Close()
	if err := d.Ping(ctx); !IsUnavailable(err) {
		t.Errorf("a closed store: %v, not unavailable", err)
	}

	// A port of loopback that was just free: connecting is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := Open(ctx, "postgres://tidings@"+addr+"/tidings?connect_timeout=5"); !IsUnavailable(err) {
		t.Errorf("a PostgreSQL server that refuses connections: %v, not unavailable", err)
	}
}
