// Package pgtest gives a test a PostgreSQL database of its own, created on
// the server TIDINGS_TEST_POSTGRES names and dropped when the test ends,
// so that tests on PostgreSQL stay as independent as those on SQLite
// files.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the variable holding the server's URL.
const Env = "TIDINGS_TEST_POSTGRES"

// EngineEnv names the engine Target picks: TIDINGS_TEST_ENGINE=postgres
// runs a package's tests that open their database through Target on
// PostgreSQL, for a wider check than the tests that run on each engine.
const EngineEnv = "TIDINGS_TEST_ENGINE"

// How is what a test run without a server says, once.
const How = "PostgreSQL tests skipped: set " + Env + "=postgres://USER@HOST:PORT/postgres, a server where tests may create databases, to run them (.ci/run starts one)"

// Server returns the server's URL, or "" when none is set. Under CI
// (CI=true) a missing server is an error: CI must run these tests.
func Server() (string, error) {
	s := os.Getenv(Env)
	if s == "" && os.Getenv("CI") == "true" {
		return "", errors.New("CI=true but " + Env + " is not set: CI must run the PostgreSQL tests (.ci/run starts a server)")
	}
	return s, nil
}

// NewDatabase creates an empty database for t and returns its URL; it is
// dropped, with whatever still connects to it, when t ends. Without a
// server it skips t, or under CI fails it.
func NewDatabase(t testing.TB) string {
	t.Helper()
	server, err := Server()
	if err != nil {
		t.Fatal(err)
	}
	if server == "" {
		t.Skip(How)
	}
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	b := make([]byte, 8)
	rand.Read(b)
	name := "tidings_test_" + hex.EncodeToString(b)
	if err := admin(server, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create a database on %s: %v", u.Redacted(), err)
	}
	t.Cleanup(func() {
		if err := admin(server, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop the test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// Target returns the --db value of a new, empty database for t: an
// SQLite file in its temporary directory, or with TIDINGS_TEST_ENGINE=
// postgres a database of its own (NewDatabase).
func Target(t testing.TB) string {
	t.Helper()
	if os.Getenv(EngineEnv) == "postgres" {
		return NewDatabase(t)
	}
	return filepath.Join(t.TempDir(), "tidings.db")
}

func admin(server, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, stmt)
	return err
}
