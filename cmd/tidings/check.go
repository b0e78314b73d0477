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
	h := harvest.New(fetch.NewClient(cfg.clientOptions()), nil, cfg.harvestOptions(log))
	rep, err := sitecheck.New(h).Check(ctx, fs.Arg(0), sitecheck.Options{})
	if err != nil {
		return err
	}
	printCheck(newTermWriter(stdout), rep, cfg.InitialWindow)
	if !rep.Followable {
		return errors.New(strings.TrimPrefix(rep.Verdict, "tidings "))
	}
	return nil
}

// printCheck writes a check's report: what was looked at and fetched,
// the collections, the problems with their fixes, what else the harvest
// noted, the preview of the feeds, and the verdict.
func printCheck(w io.Writer, rep *sitecheck.Report, window time.Duration) {
	fmt.Fprintf(w, "Checked %s", rep.Site)
	if rep.Title != "" {
		fmt.Fprintf(w, " (%s)", rep.Title)
	}
	fmt.Fprintf(w, " at %s\n\nWhere tidings looked, for every kind of change information:\n", rep.Checked.Format(time.RFC3339))
	for _, t := range rep.Tried {
		fmt.Fprintf(w, "  - %s\n", t)
	}
	fmt.Fprintln(w, "\nDocuments fetched:")
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
		fmt.Fprintf(w, "  %s (%s)\n    %s\n", c.Title, c.Protocol, c.Source)
		if c.Error != "" {
			fmt.Fprintf(w, "    cannot be harvested: %s\n", c.Error)
			continue
		}
		fmt.Fprintf(w, "    %d document(s) read, %d change(s)", c.Documents, c.Changes)
		switch {
		case c.InFeed == c.Changes:
			fmt.Fprintf(w, "; following it now puts them all in its feed\n")
		case c.InFeed == 0:
			fmt.Fprintf(w, "; all are older than %s, so following it now puts none in its feed: they are kept as already seen, and the feed starts with the next change\n", spanText(window))
		default:
			fmt.Fprintf(w, "; following it now puts the %d of the last %s in its feed, the older ones are kept as already seen\n", c.InFeed, spanText(window))
		}
	}
	printProblems(w, rep.Problems)
	if len(rep.Warnings) > 0 {
		fmt.Fprintln(w, "\nAlso noted:")
		for _, wn := range rep.Warnings {
			fmt.Fprintf(w, "  - %s\n", wn)
		}
	}
	printPreview(w, rep.Collections)
	fmt.Fprintf(w, "\n%s\n", rep.Verdict)
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
		fmt.Fprintf(w, "  %d. [%s] %s\n", i+1, p.Code, where)
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

// spanText writes a duration for people: "30 days", or as Go writes it.
func spanText(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == day:
		return "day"
	case d > 0 && d%day == 0:
		return fmt.Sprintf("%d days", d/day)
	}
	return d.String()
}
