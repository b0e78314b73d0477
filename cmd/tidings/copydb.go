package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"

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
	if db.IsUnavailable(err) && ctx.Err() == nil {
		// The copy is one transaction: a failed one wrote nothing.
		return fmt.Errorf("the database --to names, %s, does not answer (%s): start it, or correct --to, and run copy-db again; nothing was copied",
			db.Redact(to), unreachableCause(err))
	}
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

// unreachableCause is why a database server did not answer, in a few
// words: the system's reason for a refused or failed connection, not the
// driver's chain, which names each address it tried.
func unreachableCause(err error) string {
	var errno syscall.Errno
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return "no address is known for " + dns.Name
	case errors.As(err, &errno):
		return errno.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "it did not answer in time"
	}
	return "it could not be reached"
}
