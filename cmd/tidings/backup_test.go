package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tidings/db"
)

func TestBackupAndRestore(t *testing.T) {
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	r := tidings(t, env, "backup", copyPath)
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "Backed up") {
		t.Errorf("backup said %q", r.stdout)
	}
	if r := tidings(t, env, "backup", copyPath); r.code == 0 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("backup over an existing file: code %d, %q", r.code, r.stderr)
	}
	original := counts(t, env["TIDINGS_DB"])
	if got := counts(t, copyPath); !equalCounts(got, original) {
		t.Fatalf("backup rows %v, original %v", got, original)
	}

	// Change the live database, then restore the copy: the change is gone.
	mustSucceed(t, tidings(t, env, "follow", strings.Replace(site.URL, "127.0.0.1", "localhost", 1)))
	if counts(t, env["TIDINGS_DB"])["sites"] != 2 {
		t.Fatal("second site not stored")
	}
	mustSucceed(t, tidings(t, env, "restore", copyPath))
	if got := counts(t, env["TIDINGS_DB"]); !equalCounts(got, original) {
		t.Errorf("after restore rows %v, want %v", got, original)
	}
}

func TestRestoreRefusesWhileServing(t *testing.T) {
	env := newEnv(t)
	createDB(t, env)
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	mustSucceed(t, tidings(t, env, "backup", copyPath))
	release, err := lockDB(env["TIDINGS_DB"], true)
	if err != nil {
		t.Fatal(err)
	}
	r := tidings(t, env, "restore", copyPath)
	release()
	if r.code == 0 || !strings.Contains(r.stderr, "a tidings server or worker is using") {
		t.Errorf("restore while locked: code %d, %q", r.code, r.stderr)
	}
}

func TestRestoreRefusesBadBackups(t *testing.T) {
	env := newEnv(t)
	createDB(t, env)
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, []byte("not a database at all, just some text"), 0o600); err != nil {
		t.Fatal(err)
	}
	newer := filepath.Join(t.TempDir(), "newer.db")
	mustSucceed(t, tidings(t, env, "backup", newer))
	store, err := db.Open(t.Context(), newer)
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	setUserVersion(t, newer, 999)
	for path, want := range map[string]string{junk: "not a readable SQLite database", newer: "schema version 999"} {
		r := tidings(t, env, "restore", path)
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("restore %s: code %d, %q; want %q", filepath.Base(path), r.code, r.stderr, want)
		}
	}
	// The binary itself refuses a database from a newer tidings.
	setUserVersion(t, env["TIDINGS_DB"], 999)
	if r := tidings(t, env, "feeds"); r.code == 0 || !strings.Contains(r.stderr, "schema version 999") {
		t.Errorf("opening a newer database: code %d, %q", r.code, r.stderr)
	}
}

func counts(t *testing.T, path string) map[string]int {
	t.Helper()
	store, err := db.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, err := store.Counts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// setUserVersion stamps a database file as if a newer tidings had written it.
func setUserVersion(t *testing.T, path string, v int) {
	t.Helper()
	conn, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		t.Fatal(err)
	}
}
