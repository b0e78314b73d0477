package db

import (
	"context"
	"database/sql"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBackupIsACheckedCopy(t *testing.T) {
	ctx := context.Background()
	d, path := openTest(t)
	if err := d.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	ann := testUser(t, d, "ann")
	col := testCollection(t, d, "shrine")
	if err := d.Follow(ctx, ann.ID, col.SiteID); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
	storeRun(t, d, col, at, "", Change{URL: "https://shrine.example/a", Kind: "created", Datetime: at},
		Change{URL: "https://shrine.example/b", Kind: "updated", Datetime: at})
	counts, err := d.Counts(ctx)
	want := map[string]int{"sites": 1, "collections": 1, "changes": 2, "runs": 1, "users": 1, "follows": 1}
	if err != nil || !maps.Equal(counts, want) {
		t.Fatalf("counts %v, %v; want %v", counts, err, want)
	}

	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if err := d.Backup(ctx, copyPath); err != nil {
		t.Fatal(err)
	}
	if v, err := Check(ctx, copyPath); err != nil || v != SchemaVersion {
		t.Fatalf("Check(copy) = %d, %v; want %d", v, err, SchemaVersion)
	}
	if v, err := Check(ctx, path); !testPostgres && (err != nil || v != SchemaVersion) {
		t.Fatalf("Check(live) = %d, %v; want %d", v, err, SchemaVersion)
	}
	// A second backup to the same name must not overwrite the first.
	if err := d.Backup(ctx, copyPath); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("backup over an existing file: %v", err)
	}
	if err := d.Backup(ctx, filepath.Join(t.TempDir(), "missing", "copy.db")); err == nil {
		t.Error("backup into a directory that does not exist succeeded")
	}

	restored, err := Open(ctx, copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if got, err := restored.Counts(ctx); err != nil || !maps.Equal(got, want) {
		t.Errorf("counts of the copy %v, %v; want %v", got, err, want)
	}
	feed, err := restored.FeedChanges(ctx, Scope{UserID: ann.ID}, 10)
	if err != nil || len(feed) != 2 {
		t.Errorf("ann's feed from the copy: %+v, %v", feed, err)
	}
}

func TestCheckRefuses(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database\n", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	newer := filepath.Join(dir, "newer.db")
	for _, p := range []struct {
		path  string
		setup string
	}{
		{foreign, `CREATE TABLE notes (id INTEGER PRIMARY KEY)`},
		{newer, `CREATE TABLE sites (id INTEGER PRIMARY KEY); PRAGMA user_version = 9999`},
	} {
		w, err := sql.Open("sqlite3", "file:"+p.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.ExecContext(ctx, p.setup); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}

	tests := []struct {
		name    string
		path    string
		version int
		says    string
	}{
		{"missing file", filepath.Join(dir, "missing.db"), 0, "no such file"},
		{"not SQLite", garbage, 0, "not a readable SQLite database"},
		{"another program's database", foreign, 0, "is not a tidings database"},
		{"a newer schema", newer, 9999, "schema version 9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Check(ctx, tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.says) || v != tt.version {
				t.Errorf("Check = %d, %v; want %d and an error saying %q", v, err, tt.version, tt.says)
			}
		})
	}
	if b, err := os.ReadFile(garbage); err != nil || !strings.HasPrefix(string(b), "not a database") {
		t.Error("Check changed the file it checked")
	}
}
