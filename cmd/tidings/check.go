package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/sitecheck"
)

// notForCheck are the global flags a check has no use for: it opens no
// database and serves nothing.
var notForCheck = map[string]bool{"db": true, "addr": true, "interval": true, "discovery-interval": true}

// checkFlags registers the settings that shape what a harvest fetches
// and how it reads it, the same as follow's, so that a check sees a site
// as following it would.
func checkFlags(fs *flag.FlagSet, c *Config) {
	all := flag.NewFlagSet("", flag.ContinueOnError)
	globalFlags(all, c)
	all.VisitAll(func(f *flag.Flag) {
		if !notForCheck[f.Name] {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
}

func cmdCheck(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("check URL", stderr)
	checkFlags(fs, &cfg)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"check needs one URL: the site's address"}
	}
	if err := cfg.validate(); err != nil {
		return usageError{err.Error()}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if cfg.LogFormat == "json" {
		log = slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	// A check stores nothing: the harvester has no database of its own.
	client := fetch.NewClient(cfg.clientOptions())
	h := harvest.New(client, nil, cfg.harvestOptions(log))
	if err := refusedAddress(ctx, h, fs.Arg(0)); err != nil {
		return err
	}
	rep, err := sitecheck.New(h).Check(ctx, fs.Arg(0), sitecheck.Options{})
	if err != nil {
		return err
	}
	printCheck(newTermWriter(stdout), rep)
	if !rep.Followable {
		// The verdict is the error, said once, on standard error.
		return errors.New(strings.TrimPrefix(rep.Verdict, "tidings "))
	}
	fmt.Fprintf(newTermWriter(stdout), "\n%s\n", rep.Verdict)
	return nil
}

// refusedAddress says, in one sentence for whoever runs the check, why
// the address policy refuses the site's address: nothing is fetched then,
// so there is no report to print.
func refusedAddress(ctx context.Context, h *harvest.Harvester, rawURL string) error {
	root, err := follow.SiteRoot(rawURL)
	if err != nil {
		return err
	}
	var ae *fetch.AddressError
	if err := h.CheckAddress(ctx, root); errors.As(err, &ae) {
		return fmt.Errorf("%s is %s, which tidings does not fetch from: to check a site on this machine or your own network, pass --allow-private-addresses (TIDINGS_ALLOW_PRIVATE_ADDRESSES=1)", ae.Address, ae.Kind)
	}
	return nil
}

// printCheck writes a check's report: what was found and where else
// tidings looked, what it fetched, the collections, the problems with
// their fixes, what else the harvest noted, and the preview of the
// feeds. The verdict is the caller's to say.
func printCheck(w io.Writer, rep *sitecheck.Report) {
	fmt.Fprintf(w, "Checked %s", rep.Site)
	if rep.Title != "" {
		fmt.Fprintf(w, " (%s)", rep.Title)
	}
	fmt.Fprintf(w, " at %s\n", rep.Checked.Format(time.RFC3339))
	if rep.Answered() {
		fmt.Fprintln(w, "\nWhere tidings looked, for every kind of change information:")
		for _, f := range rep.Found {
			fmt.Fprintf(w, "  + %s\n", f)
		}
		for _, t := range rep.Tried {
			fmt.Fprintf(w, "  - %s\n", t)
		}
		fmt.Fprintln(w, "\nDocuments fetched:")
	} else {
		// Where it looked is what it fetched, each in vain: said once.
		fmt.Fprintln(w, "\nNothing answered. Documents asked for:")
	}
	for _, f := range rep.Fetched {
		fmt.Fprintf(w, "  %s: %s\n", f.URL, f.Outcome)
	}
	if rep.FetchedMore > 0 {
		fmt.Fprintf(w, "  … and %d more\n", rep.FetchedMore)
	}
	if len(rep.Collections) > 0 {
		fmt.Fprintln(w, "\nCollections:")
	}
	for _, c := range rep.Collections {
		fmt.Fprintf(w, "  %s (%s)\n    %s\n    %s\n", c.Title, c.Protocol, c.Source, c.Outcome)
	}
	printProblems(w, rep.Problems)
	if len(rep.Warnings) > 0 {
		fmt.Fprintln(w, "\nAlso noted:")
		for _, wn := range rep.Warnings {
			fmt.Fprintf(w, "  - %s\n", wn)
		}
	}
	printPreview(w, rep.Collections)
}

func printProblems(w io.Writer, problems []sitecheck.Problem) {
	if len(problems) == 0 {
		fmt.Fprintln(w, "\nNo problems found.")
		return
	}
	fmt.Fprintf(w, "\nProblems (%d):\n", len(problems))
	for i, p := range problems {
		where := p.Doc
		if p.Where != "" {
			where += ", " + p.Where
		}
		if where != "" {
			where = " " + where
		}
		fmt.Fprintf(w, "  %d. [%s]%s\n", i+1, p.Code, where)
		fmt.Fprintf(w, "     %s\n     Fix: %s\n", p.Problem, p.Fix)
	}
}

func printPreview(w io.Writer, cols []sitecheck.Collection) {
	header := false
	for _, c := range cols {
		if len(c.Preview) == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\nWhat the feeds would show, newest first:")
			header = true
		}
		fmt.Fprintf(w, "  %s\n", c.Title)
		for _, e := range c.Preview {
			fmt.Fprintf(w, "    %s  %s\n", e.Updated.UTC().Format("2006-01-02 15:04"), e.Title)
			if e.Summary != "" {
				fmt.Fprintf(w, "      %s\n", e.Summary)
			}
			if e.Link != "" {
				fmt.Fprintf(w, "      %s\n", e.Link)
			}
		}
	}
}
