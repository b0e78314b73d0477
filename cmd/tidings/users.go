package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"golang.org/x/term"

	"tidings/accounts"
	"tidings/db"
	"tidings/opml"
)

func cmdUser(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	const usage = "usage: tidings user add NAME | user list | user delete NAME | user notify NAME [flags] | user token NAME [flags]"
	if len(args) == 0 {
		return usageError{usage}
	}
	if args[0] == "notify" {
		return cmdUserNotify(ctx, args[1:], getenv, stdout, stderr)
	}
	if args[0] == "token" {
		return cmdUserToken(ctx, args[1:], getenv, stdout, stderr)
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stdout, usage)
		return nil
	}
	var cfg Config
	fs := newFlagSet("user "+args[0], stderr)
	storeFlags(fs, &cfg)
	cfg.MayCreate = args[0] == "add"
	if err := parseFlags(fs, args[1:], getenv); err != nil {
		return err
	}
	want := map[string]int{"add": 1, "list": 0, "delete": 1}
	n, ok := want[args[0]]
	if !ok || fs.NArg() != n {
		return usageError{usage}
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	switch args[0] {
	case "add":
		return a.userAdd(ctx, fs.Arg(0), stdin, stdout)
	case "delete":
		err := a.store.DeleteUser(ctx, fs.Arg(0))
		if errors.Is(err, db.ErrNotFound) {
			return fmt.Errorf("there is no user %q", fs.Arg(0))
		}
		if err == nil {
			fmt.Fprintf(stdout, "Deleted %s and their follows.\n", fs.Arg(0))
		}
		return err
	}
	users, err := a.store.Users(ctx)
	if err != nil {
		return err
	}
	for _, u := range users {
		role := "user"
		if u.Admin {
			role = "admin"
		}
		fmt.Fprintf(stdout, "%s\t%s\tsince %s\n", u.Name, role, u.CreatedAt.Format("2006-01-02"))
	}
	return nil
}

// userNamed is the account a command names, or an error that says there
// is none.
func (a *app) userNamed(ctx context.Context, name string) (db.User, error) {
	u, err := a.store.UserByName(ctx, name)
	if errors.Is(err, db.ErrNotFound) {
		return db.User{}, fmt.Errorf("there is no user %q", name)
	}
	return u, err
}

func (a *app) userAdd(ctx context.Context, name string, stdin io.Reader, stdout io.Writer) error {
	if msg := accounts.ValidateName(name); msg != "" {
		return usageError{fmt.Sprintf("the name %q is not allowed: %s", name, msg)}
	}
	pw, err := readPassword(stdin, stdout)
	if err != nil {
		return err
	}
	hash, err := accounts.HashPassword(pw)
	if err != nil {
		return err
	}
	u, err := a.store.CreateUser(ctx, name, hash, accounts.NewToken(), "")
	if errors.Is(err, db.ErrAlreadyExists) {
		return fmt.Errorf("the name %q is taken", name)
	}
	if err != nil {
		return err
	}
	role := "user"
	if u.Admin {
		role = "admin (the first account)"
	}
	fmt.Fprintf(stdout, "Created %s, %s.\n", u.Name, role)
	return nil
}

// readPassword asks twice without echo on a terminal, and otherwise reads
// the first line of stdin (for scripts: echo "$PW" | tidings user add NAME).
func readPassword(stdin io.Reader, stdout io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stdout, "Password: ")
		pw, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stdout)
		if err != nil {
			return "", err
		}
		fmt.Fprint(stdout, "Again: ")
		again, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stdout)
		if err != nil {
			return "", err
		}
		if string(pw) != string(again) {
			return "", errors.New("the two passwords differ")
		}
		return string(pw), nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("no password given on standard input")
	}
	return line, nil
}

func cmdOPML(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	const usage = "usage: tidings opml export --user NAME [--entries page]"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(stdout, usage)
		return nil
	}
	if len(args) == 0 || args[0] != "export" {
		return usageError{usage}
	}
	var cfg Config
	fs := newFlagSet("opml export --user NAME [--entries page]", stderr)
	storeFlags(fs, &cfg)
	baseURLFlag(fs, &cfg)
	name := fs.String("user", "", "whose follows to export")
	mode := fs.String("entries", "", `"page" lists the feeds of one entry per changed page instead of one per harvest`)
	if err := parseFlags(fs, args[1:], getenv); err != nil {
		return err
	}
	if err := noArguments(fs); err != nil {
		return err
	}
	entries, ok := opml.ParseEntries(*mode)
	if *name == "" || !ok {
		return usageError{usage}
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	u, err := a.userNamed(ctx, *name)
	if err != nil {
		return err
	}
	if a.guessedURL {
		fmt.Fprintf(stderr, "tidings: warning: the feed addresses start with %s, which is a guess: serve was never started with --base-url, and none was given here. "+
			"Give the address readers reach this tidings at with --base-url (TIDINGS_BASE_URL), here or once to serve.\n", a.cfg.BaseURL)
	}
	return opml.WriteUser(ctx, a.store, a.cfg.BaseURL, u, entries, stdout)
}
