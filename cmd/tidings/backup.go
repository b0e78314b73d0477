package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"tidings/db"
)

// lockFile is taken by serve and worker for as long as they run, so
// that restore can tell that a process works on the database.
func lockFile(dbPath string) string { return dbPath + ".lock" }

// lockDB takes the lock on an SQLite database: shared, as serve and
// worker take it, for any number of processes that share the database;
// exclusive, as restore takes it, for one that replaces it under no
// other. It says who holds it when it cannot.
func lockDB(dbPath string, shared bool) (release func(), err error) {
	if db.IsPostgres(dbPath) {
		// Shared by design: several serve processes may use one
		// PostgreSQL database, and restore refuses it.
		return func() {}, nil
	}
	f, err := os.OpenFile(lockFile(dbPath), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", lockFile(dbPath), err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if shared {
			return nil, fmt.Errorf("%s is being restored (its restore holds %s); wait for it", dbPath, lockFile(dbPath))
		}
		return nil, fmt.Errorf("a tidings server or worker is using %s (it holds %s); stop it first", dbPath, lockFile(dbPath))
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func cmdBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("backup FILE", stderr)
	storeFlags(fs, &cfg)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"backup needs the file to write, e.g. tidings backup /var/backups/tidings-2026-11-21.db"}
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	if err := a.store.Backup(ctx, fs.Arg(0)); err != nil {
		return err
	}
	if _, err := db.Check(ctx, fs.Arg(0)); err != nil {
		return fmt.Errorf("the backup was written but does not check out: %w", err)
	}
	fmt.Fprintf(stdout, "Backed up %s to %s.\n", db.Redact(cfg.DB), fs.Arg(0))
	return nil
}

// cmdRestore replaces the database with a backup, safely: never while a
// server runs on it, never from a damaged or newer backup, and through a
// rename so that a failure leaves the old database whole.
func cmdRestore(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("restore FILE", stderr)
	storeFlags(fs, &cfg)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"restore needs the backup file to restore from"}
	}
	src := fs.Arg(0)
	if db.IsPostgres(cfg.DB) {
		return fmt.Errorf("restore replaces an SQLite file; into PostgreSQL, copy the backup into an empty database: tidings copy-db --db %s --to URL", src)
	}
	if _, err := db.Check(ctx, src); err != nil {
		return fmt.Errorf("refusing to restore: %w", err)
	}
	release, err := lockDB(cfg.DB, false)
	if err != nil {
		return fmt.Errorf("refusing to restore: %w", err)
	}
	defer release()
	tmp := filepath.Join(filepath.Dir(cfg.DB), "."+filepath.Base(cfg.DB)+".restore")
	if err := copyFile(src, tmp); err != nil {
		return err
	}
	// The old write-ahead log belongs to the old database: left beside the
	// restored file, SQLite would replay it into the wrong data.
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(cfg.DB + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, cfg.DB); err != nil {
		os.Remove(tmp)
		return err
	}
	fmt.Fprintf(stdout, "Restored %s from %s.\n", cfg.DB, src)
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
