package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/pagetext"
	"tidings/source"
	"tidings/worker"
)

// stripExists removes db.ErrAlreadyExists from a joined error, keeping the
// rest (a harvest failure) to report.
func stripExists(err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil
	}
	var rest []error
	for _, e := range j.Unwrap() {
		if !errors.Is(e, db.ErrAlreadyExists) {
			rest = append(rest, e)
		}
	}
	return errors.Join(rest...)
}

func (a *app) printReport(w io.Writer, rep *harvest.SiteReport, withFeeds bool) {
	fmt.Fprintf(w, "%s: %d collection(s), %d new change(s)", rep.Site.URL, len(rep.Collections), rep.Changes())
	if rep.Run.Error != "" {
		fmt.Fprintf(w, "; problem: %s", rep.Run.Error)
	}
	fmt.Fprintln(w)
	for _, wn := range rep.Run.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", wn)
	}
	for _, c := range rep.Collections {
		r := c.Run
		fmt.Fprintf(w, "  %s\n", c.Collection.Title)
		if withFeeds {
			fmt.Fprintf(w, "    feed: %s\n", a.feedURL(c.Collection))
		}
		fmt.Fprintf(w, "    protocol %s\n", source.Describe(c.Collection.Protocol, c.Collection.Watched))
		fmt.Fprintf(w, "    %d document(s) fetched (%d unchanged), %d new change(s)", r.Documents, r.NotModified, r.Changes)
		if r.LastmodOnly > 0 {
			fmt.Fprintf(w, ", %d dated by lastmod", r.LastmodOnly)
		}
		if r.Backfilled > 0 {
			fmt.Fprintf(w, ", %d older stored as already seen", r.Backfilled)
		}
		fmt.Fprintln(w)
		if r.Following {
			fmt.Fprintf(w, "    now followed: its feed's first entry names its %d page(s) and lists the latest changes\n", r.Pages)
		}
		if r.Error != "" {
			fmt.Fprintf(w, "    problem: %s\n", r.Error)
		}
		for _, wn := range r.Warnings {
			fmt.Fprintf(w, "    warning: %s\n", wn)
		}
	}
}

func cmdHarvest(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("harvest [--all | --site URL] [--workers N]", stderr)
	globalFlags(fs, &cfg)
	all := fs.Bool("all", false, "harvest every site still followed, due or not")
	siteURL := fs.String("site", "", "harvest only this site")
	workers := workersFlag(fs)
	websubFlags(fs, &cfg)
	retentionFlag(fs, &cfg)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := noArguments(fs); err != nil {
		return err
	}
	if *all && *siteURL != "" {
		return usageError{"give --all or --site, not both"}
	}
	if *workers < 1 {
		return usageError{"--workers must be at least 1"}
	}
	if err := errors.Join(cfg.validateWebSub(), cfg.validateRetention()); err != nil {
		return usageError{err.Error()}
	}
	// The report printed says what went wrong: the log line a harvest
	// writes for serve's operator would say it again.
	a, err := openApp(ctx, cfg, stderr, slog.LevelError)
	if err != nil {
		return err
	}
	defer a.store.Close()
	if a.cfg.WebSubHub != "" {
		// The pings go through the client the harvests fetch with, and
		// are waited for before the store closes.
		client := fetch.NewClient(a.cfg.clientOptions())
		p, err := newPinger(ctx, a, client)
		if err != nil {
			return err
		}
		defer p.wait()
		ho := a.cfg.harvestOptions(a.log)
		ho.AfterHarvest = p.afterHarvest
		a.setHarvester(harvest.New(client, a.store, ho), follow.Options{})
	}
	var sites []db.Site
	switch {
	case *siteURL != "":
		root, err := follow.SiteRoot(*siteURL)
		if err != nil {
			return err
		}
		s, err := a.store.SiteByURL(ctx, root)
		if errors.Is(err, db.ErrNotFound) {
			return fmt.Errorf("%s is not followed; follow it first with: tidings follow %s", root, *siteURL)
		}
		if err != nil {
			return err
		}
		if s.UnfollowedAt != nil {
			return fmt.Errorf("nobody has followed %s since %s, so it is no longer harvested; follow it again with: tidings follow %s",
				root, s.UnfollowedAt.Format(time.DateOnly), *siteURL)
		}
		sites = []db.Site{s}
	case *all:
		sites, err = a.store.HarvestedSites(ctx)
	default:
		sites, err = a.store.DueSites(ctx, time.Now())
	}
	if err != nil {
		return err
	}
	if len(sites) == 0 {
		fmt.Fprintln(stdout, "No site is due for harvest.")
		return a.sweep(ctx, stdout)
	}
	failed, done := 0, 0
	prog := newProgress(stdout, len(sites), isTerminal(stdout))
	harvestSites := a.follow.HarvestSites
	if !*all && *siteURL == "" {
		// What a worker harvests meanwhile is no longer due.
		harvestSites = a.follow.HarvestDue
	}
	err = harvestSites(ctx, sites, worker.Batch{
		Workers: *workers,
		// Leased in the database: serve and worker processes may
		// harvest the same hosts meanwhile.
		Pool:    a.sharedPool(nil),
		Started: prog.start,
		Done: func(_ string, rep *harvest.SiteReport, herr error) {
			done++
			prog.done(func(w io.Writer) {
				if rep != nil {
					a.printReport(w, rep, false)
				}
				if herr != nil {
					failed++
					if rep == nil || rep.Run.Error == "" {
						fmt.Fprintf(w, "  problem: %v\n", herr)
					}
				}
			})
		},
	})
	prog.close(done)
	if err == nil && failed > 0 {
		err = fmt.Errorf("%d of %d site(s) could not be harvested", failed, len(sites))
	}
	if ctx.Err() != nil {
		return err
	}
	return errors.Join(err, a.sweep(ctx, stdout))
}

// sweep deletes the history the retention no longer keeps, after the
// harvests, as serve's scheduler does every hour, for an instance that
// serves without one; and says what it deleted.
func (a *app) sweep(ctx context.Context, stdout io.Writer) error {
	sw, err := a.follow.Sweep(ctx, a.cfg.retention())
	if err != nil {
		return err
	}
	if sw.Emptied > 0 {
		fmt.Fprintf(stdout, "Deleted the history of %d site(s) nobody has followed for %s.\n", sw.Emptied, a.cfg.UnfollowedRetention)
	}
	if sw.Changes > 0 || sw.Runs > 0 || sw.Snapshots > 0 {
		fmt.Fprintf(stdout, "Deleted %d change(s) of %d collection(s) older than %s beyond their newest %d, %d harvest run(s) and %d page snapshot(s) no longer needed.\n",
			sw.Changes, sw.Collections, durationText(a.cfg.KeepChangesFor), a.cfg.KeepChanges, sw.Runs, sw.Snapshots)
	}
	if sh := sw.Share; sh.Sites > 0 {
		fmt.Fprintf(stdout, "Deleted the %d oldest change(s) of %d site(s) storing more than their share (--site-share %d bytes), with %d harvest run(s) and %d page snapshot(s) no longer needed.\n",
			sh.Changes, sh.Sites, a.cfg.SiteShare, sh.Runs, sh.Snapshots)
	}
	if sw.Share.Over > 0 {
		fmt.Fprintf(stdout, "%d site(s) still store more than their share: what each must keep, its newest %d changes per collection and the page snapshots its next harvest compares with, is more. Raise --site-share, or lower --keep-changes.\n",
			sw.Share.Over, a.cfg.KeepChanges)
	}
	return nil
}

// feedInfo is one line of `tidings feeds --json`.
type feedInfo struct {
	ID          int64      `json:"id"`
	Site        string     `json:"site"`
	Key         string     `json:"key"`
	Title       string     `json:"title"`
	Protocol    string     `json:"protocol"`
	FeedURL     string     `json:"feed_url"`
	Changes     int        `json:"changes"` // in the feed, one entry each with ?entries=page
	History     int        `json:"history"` // stored as already seen: only the first harvest's entry lists them
	LastHarvest *time.Time `json:"last_harvest"`
	LastError   string     `json:"last_error"`
}

func cmdFeeds(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("feeds [--json]", stderr)
	storeFlags(fs, &cfg)
	baseURLFlag(fs, &cfg)
	asJSON := fs.Bool("json", false, "print one JSON object per collection")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := noArguments(fs); err != nil {
		return err
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	cols, err := a.store.Collections(ctx, db.CollectionFilter{})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	out := newTermWriter(stdout)
	switch {
	case len(cols) == 0:
	case !*asJSON:
		a.sayFeedBase(stdout)
	case a.guessedURL:
		// Standard output is JSON Lines; a guess is worth a warning.
		a.sayFeedBase(stderr)
	}
	for _, c := range cols {
		if *asJSON {
			if err := enc.Encode(feedInfo{ID: c.ID, Site: c.SiteURL, Key: c.Key, Title: c.Title, Protocol: c.Protocol,
				FeedURL: a.feedURL(c), Changes: c.Changes, History: c.History, LastHarvest: c.LastHarvestAt, LastError: c.LastError}); err != nil {
				return err
			}
			continue
		}
		last := "never"
		if c.LastHarvestAt != nil {
			last = c.LastHarvestAt.Format(time.RFC3339)
		}
		fmt.Fprintf(out, "%d\t%s\n\tsite %s, %d change(s) in the feed", c.ID, c.Title, c.SiteURL, c.Changes)
		if c.History > 0 {
			fmt.Fprintf(out, " (%d older stored as already seen)", c.History)
		}
		fmt.Fprintf(out, ", last harvest %s\n\tfeed %s\n", last, a.feedURL(c))
		if c.LastError != "" {
			fmt.Fprintf(out, "\tproblem: %s\n", c.LastError)
		}
	}
	if len(cols) == 0 && !*asJSON {
		fmt.Fprintln(stdout, "No collections yet. Follow a site with: tidings follow URL")
	}
	return nil
}

// exportTime is how an export writes a change's time: RFC 3339 in UTC,
// with the fraction of a second the time has (a harvest's own clock's
// milliseconds, a change list's microseconds), none when it is 0.
const exportTime = "2006-01-02T15:04:05.999999Z07:00"

// exportedChange is one line of `tidings export changes`.
type exportedChange struct {
	Site         string `json:"site"`
	Collection   string `json:"collection"`
	CollectionID int64  `json:"collection_id"`
	URL          string `json:"url"`
	Change       string `json:"change"`
	Datetime     string `json:"datetime"`
	Source       string `json:"source"`
	Title        string `json:"title,omitempty"`
	Summary      string `json:"summary,omitempty"`
	// TextChange is changed, unchanged or unknown: what the page's
	// snapshot found of its text.
	TextChange string `json:"text_change"`
	// Diff is a unified diff of the page's text; "" when unknown.
	Diff string `json:"diff"`
	// AlreadySeen: the page was there before tidings followed its
	// collection (older than the first harvest's window, or recorded as
	// it was at the follow), not a page created since.
	AlreadySeen bool `json:"already_seen"`
}

func cmdExport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	const usage = "usage: tidings export changes [--site URL] [--collection ID]"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(stdout, usage)
		return nil
	}
	if len(args) == 0 || args[0] != "changes" {
		return usageError{usage}
	}
	var cfg Config
	fs := newFlagSet("export changes [--site URL] [--collection ID]", stderr)
	storeFlags(fs, &cfg)
	siteURL := fs.String("site", "", "only this site's changes")
	collection := fs.Int64("collection", 0, "only this collection's changes")
	if err := parseFlags(fs, args[1:], getenv); err != nil {
		return err
	}
	if err := noArguments(fs); err != nil {
		return err
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	f := db.ExportFilter{CollectionID: *collection}
	// A filter that matches nothing because of a typo would print nothing
	// and look like a site without changes.
	if *collection != 0 {
		if _, err := a.store.CollectionByID(ctx, *collection); errors.Is(err, db.ErrNotFound) {
			return fmt.Errorf("there is no collection %d; tidings feeds lists them with their ids", *collection)
		} else if err != nil {
			return err
		}
	}
	if *siteURL != "" {
		if f.SiteURL, err = follow.SiteRoot(*siteURL); err != nil {
			return err
		}
		if _, err := a.store.SiteByURL(ctx, f.SiteURL); errors.Is(err, db.ErrNotFound) {
			return fmt.Errorf("%s is not followed; tidings feeds lists the sites followed", f.SiteURL)
		} else if err != nil {
			return err
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return a.store.ExportChanges(ctx, f, func(c db.ExportedChange) error {
		return enc.Encode(exportedChange{
			Site: c.SiteURL, Collection: c.CollectionKey, CollectionID: c.CollectionID, URL: c.URL,
			Change: c.Kind, Datetime: c.Datetime.UTC().Format(exportTime), Source: c.Source,
			Title: c.Title, Summary: c.Summary, TextChange: exportedTextChange(c.TextChange), Diff: unifiedDiff(c.Change),
			AlreadySeen: c.History,
		})
	})
}

// exportedTextChange names the stored TextUnknown, which is empty.
func exportedTextChange(tc string) string {
	if tc == db.TextUnknown {
		return "unknown"
	}
	return tc
}

// unifiedDiff writes a change's stored diff as a unified diff of the
// page's text; "" when there is none, or it cannot be read.
func unifiedDiff(c db.Change) string {
	if c.Diff == "" {
		return ""
	}
	var d pagetext.Diff
	if err := json.Unmarshal([]byte(c.Diff), &d); err != nil {
		return ""
	}
	old := c.URL
	if c.Kind == "created" {
		old = "/dev/null"
	}
	return d.Unified(old, c.URL+" "+c.Datetime.UTC().Format(time.RFC3339))
}
