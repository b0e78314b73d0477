package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"tidings/accounts"
	"tidings/db"
)

// cmdUserToken makes, lists and revokes a person's API tokens.
func cmdUserToken(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	const usage = "usage: tidings user token NAME [--label TEXT] [--list] [--revoke ID]"
	var cfg Config
	fs := newFlagSet("user token NAME [--label TEXT] [--list] [--revoke ID]", stderr)
	storeFlags(fs, &cfg)
	label := fs.String("label", "", "what the token is for (default: \"command line\" and the date)")
	list := fs.Bool("list", false, "list the person's tokens")
	revoke := fs.Int64("revoke", 0, "revoke the token of this id (see --list)")
	// The person's name comes first, the flags after it.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() != 0 || name == "" {
		return usageError{usage}
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	u, err := a.userNamed(ctx, name)
	if err != nil {
		return err
	}
	switch {
	case *list:
		tokens, err := a.store.APITokens(ctx, u.ID)
		if err != nil {
			return err
		}
		if len(tokens) == 0 {
			fmt.Fprintf(stdout, "%s has no API token.\n", u.Name)
		}
		for _, t := range tokens {
			used := "never used"
			if t.LastUsedAt != nil {
				used = "last used " + t.LastUsedAt.UTC().Format("2006-01-02 15:04")
			}
			fmt.Fprintf(stdout, "%d\t%s\tmade %s\t%s\n", t.ID, t.Name, t.CreatedAt.UTC().Format("2006-01-02"), used)
		}
		return nil
	case *revoke != 0:
		err := a.store.DeleteAPIToken(ctx, u.ID, *revoke)
		if errors.Is(err, db.ErrNotFound) {
			return fmt.Errorf("%s has no token %d: `tidings user token %s --list` lists theirs", u.Name, *revoke, u.Name)
		}
		if err == nil {
			fmt.Fprintf(stdout, "Revoked token %d of %s.\n", *revoke, u.Name)
		}
		return err
	}
	if *label == "" {
		*label = "command line, " + time.Now().UTC().Format("2006-01-02")
	}
	token, hash := accounts.NewAPIToken()
	t, err := a.store.CreateAPIToken(ctx, u.ID, *label, hash, time.Now())
	if errors.Is(err, db.ErrTooManyTokens) {
		return fmt.Errorf("%s has %d tokens, the most there may be: revoke one with --revoke ID first", u.Name, db.MaxAPITokens)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "Token %s (%q) of %s; it is shown this once:\n", strconv.FormatInt(t.ID, 10), t.Name, u.Name)
	fmt.Fprintln(stdout, token)
	return nil
}
