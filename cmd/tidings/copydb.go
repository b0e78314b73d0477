package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"tidings/db"
)

// cmdCopyDB copies the whole database --db names into a new or empty one,
// SQLite or PostgreSQL either way: how an instance moves between engines.
func cmdCopyDB(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	var to string
	fs := newFlagSet("copy-db --to URL_OR_PATH", stderr)
	storeFlags(fs, &cfg)
	fs.StringVar(&to, "to", "", "the database to copy into: a new SQLite file, or the postgres:// URL of an empty database")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if to == "" || fs.NArg() != 0 {
		return usageError{"copy-db needs only --to, the database to copy into, e.g. tidings copy-db --db tidings.db --to postgres://tidings@localhost/tidings"}
	}
	if to == cfg.DB {
		return usageError{"copy-db copies --db into another database; --to names the same one"}
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	counts, err := db.Copy(ctx, a.store, to)
	if err != nil {
		return err
	}
	var rows int64
	var each []string
	for _, c := range counts {
		rows += c.Rows
		each = append(each, fmt.Sprintf("%s %d", c.Table, c.Rows))
	}
	fmt.Fprintf(stdout, "Copied %s to %s: %d rows in %d tables (%s).\n",
		db.Redact(cfg.DB), db.Redact(to), rows, len(counts), strings.Join(each, ", "))
	return nil
}
