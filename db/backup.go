package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// Backup writes a consistent copy of the live database to the SQLite file
// path: with VACUUM INTO, which reads one snapshot while writers carry on,
// on the writer connection (the read-only pool refuses it); from
// PostgreSQL, with Copy.
func (d *DB) Backup(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("db: backup: %s already exists; choose a new file name", path)
	}
	if d.eng == postgresEngine {
		// An SQLite file, in one repeatable-read snapshot: a backup that
		// restores anywhere.
		if _, err := Copy(ctx, d, path); err != nil {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(path + suffix)
			}
			return fmt.Errorf("db: backup to %s: %w", path, err)
		}
		return nil
	}
	if _, err := d.w.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("db: backup to %s: %w", path, err)
	}
	return nil
}

// Check opens the database file at path read-only and tells whether it is
// a sound tidings database this binary can use: integrity_check passes and
// its schema is not newer than this binary's. It returns the schema version.
func Check(ctx context.Context, path string) (int, error) {
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("db: %s: %w", path, err)
	}
	r, err := sql.Open("sqlite3", "file:"+url.PathEscape(path)+"?mode=ro&_query_only=on")
	if err != nil {
		return 0, fmt.Errorf("db: open %s: %w", path, err)
	}
	defer r.Close()
	var result string
	if err := r.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&result); err != nil {
		return 0, fmt.Errorf("db: %s is not a readable SQLite database: %w", path, err)
	}
	if result != "ok" {
		return 0, fmt.Errorf("db: %s is damaged: %s", path, result)
	}
	var v int
	if err := r.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("db: read schema version of %s: %w", path, err)
	}
	if v > SchemaVersion {
		return v, fmt.Errorf("db: %s has schema version %d but this tidings knows only up to %d", path, v, SchemaVersion)
	}
	var n int
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'sites'`).Scan(&n); err != nil || n == 0 {
		return v, errors.Join(fmt.Errorf("db: %s is not a tidings database", path), err)
	}
	return v, nil
}

// Counts returns the number of rows of the main tables, for comparing a
// backup with its original.
func (d *DB) Counts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, t := range []string{"sites", "collections", "changes", "runs", "users", "follows"} {
		var n int
		if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM `+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("db: count %s: %w", t, err)
		}
		out[t] = n
	}
	return out, nil
}
