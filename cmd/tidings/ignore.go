package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"tidings/db"
	"tidings/follow"
)

// cmdIgnore lists a site's ignore rules, adding and removing some first:
// what its pages hold that is no news, for everyone who follows it.
func cmdIgnore(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("ignore URL [--text TEXT]... [--css SELECTOR]... [--remove ID]...", stderr)
	storeFlags(fs, &cfg)
	var texts, selectors, removes listFlag
	fs.Var(&texts, "text", "ignore the lines that contain this text, or match this /pattern/ (repeatable)")
	fs.Var(&selectors, "css", "leave out of every page read the parts this CSS selector matches (repeatable)")
	fs.Var(&removes, "remove", "remove the rule of this id, as the list shows it (repeatable)")
	sites, err := parseInterspersed(fs, args, getenv)
	if err != nil {
		return err
	}
	if len(sites) != 1 {
		return usageError{"give one site's address: tidings ignore URL [--text TEXT]... [--css SELECTOR]... [--remove ID]..."}
	}
	var ids []int64
	for _, r := range removes {
		id, err := strconv.ParseInt(r, 10, 64)
		if err != nil || id <= 0 {
			return usageError{fmt.Sprintf("--remove takes a rule's id, as the list shows it, not %q", r)}
		}
		ids = append(ids, id)
	}
	for _, t := range texts {
		if _, err := follow.CheckRule(db.IgnoreText, t); err != nil {
			return usageError{err.Error()}
		}
	}
	for _, s := range selectors {
		if _, err := follow.CheckRule(db.IgnoreCSS, s); err != nil {
			return usageError{err.Error()}
		}
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	root, err := follow.SiteRoot(sites[0])
	if err != nil {
		return err
	}
	site, err := a.store.SiteByURL(ctx, root)
	if errors.Is(err, db.ErrNotFound) {
		return fmt.Errorf("%s is not followed; follow it first with: tidings follow %s", root, sites[0])
	}
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := follow.DropRule(ctx, a.store, follow.Ruler{}, site.ID, id); errors.Is(err, db.ErrNotFound) {
			return fmt.Errorf("%s has no rule %d; the list shows its rules with their ids: tidings ignore %s", root, id, root)
		} else if err != nil {
			return err
		}
	}
	add := func(kind string, patterns []string) error {
		for _, p := range patterns {
			if _, err := follow.IgnoreRule(ctx, a.store, follow.Ruler{}, site.ID, kind, p, true, time.Now()); err != nil {
				return err
			}
		}
		return nil
	}
	if err := errors.Join(add(db.IgnoreText, texts), add(db.IgnoreCSS, selectors)); err != nil {
		return err
	}
	// The operator's rules are for everyone; each person's own stay
	// theirs, unlisted here as on the site's page.
	rules, err := a.store.RulesFor(ctx, site.ID, 0)
	if err != nil {
		return err
	}
	out := newTermWriter(stdout)
	fmt.Fprintf(out, "%s: counters and timestamps are always ignored", root)
	if len(rules) == 0 {
		fmt.Fprintln(out, "; no other rule")
		return nil
	}
	fmt.Fprintln(out, "; and:")
	for _, r := range rules {
		fmt.Fprintf(out, "%d\t%s\t%s", r.ID, r.Kind, r.Pattern)
		if r.OffReason != "" {
			fmt.Fprintf(out, "\tswitched off: %s", r.OffReason)
		}
		fmt.Fprintln(out)
	}
	return nil
}
