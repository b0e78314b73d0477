package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"tidings/fetch"
	"tidings/publish"
)

// publishEnv maps the publish flags that describe a site's setup, rather
// than one run, to their environment variables. They have a PUBLISH_
// infix: TIDINGS_BASE_URL is tidings' own address, not the site's.
var publishEnv = map[string]string{
	"base-url": "TIDINGS_PUBLISH_BASE_URL",
	"folder":   "TIDINGS_PUBLISH_FOLDER",
	"datetime": "TIDINGS_PUBLISH_DATETIME",
	// The pings are the site's too: a CI secret holds the key.
	"indexnow-key":      "TIDINGS_PUBLISH_INDEXNOW_KEY",
	"indexnow-endpoint": "TIDINGS_PUBLISH_INDEXNOW_ENDPOINT",
	"websub-hub":        "TIDINGS_PUBLISH_WEBSUB_HUB",
}

// listFlag is a flag that may be given more than once.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// periodFlag is a duration that also takes days ("30d").
type periodFlag time.Duration

func (p *periodFlag) String() string {
	if *p == 0 {
		return ""
	}
	return time.Duration(*p).String()
}

func (p *periodFlag) Set(v string) error {
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a number of days", v)
		}
		*p = periodFlag(time.Duration(n) * 24 * time.Hour)
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a period such as 30d or 12h", v)
	}
	*p = periodFlag(d)
	return nil
}

func cmdPublish(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var o publish.Options
	var collections, include listFlag
	var history periodFlag
	var allowPrivate bool
	fs := newFlagSet("publish DIR --base-url URL [--collection PATH]... [--include GLOB]... [--datetime git|now] [--history 30d] [--note TEXT] [--link-feed] [--indexnow-key KEY] [--websub-hub URL]", stderr)
	fs.StringVar(&o.BaseURL, "base-url", "", "the public URL the folder is served at (required)")
	fs.Var(&collections, "collection", "a folder of the site that is a collection of its own; repeat for several (default: the whole site)")
	fs.Var(&include, "include", "a glob of other files that count as pages, such as *.pdf or img/*.png; repeat for several (HTML pages always count)")
	fs.StringVar(&o.Folder, "folder", publish.DefaultFolder, "the folder of the site the collections' documents are written to")
	fs.StringVar(&o.Datetime, "datetime", "", "how changes are dated: git (the last commit that touched the file) or now (default: git inside a git work tree, else now)")
	fs.Var(&history, "history", "on the first run, fill the change list from the commits of this period, such as 30d (git work trees only)")
	fs.StringVar(&o.Note, "note", "", "the note of every change this run finds, in the change feed and the change list (a page's own <meta name=\"change-note\"> wins; default: the commit's subject in a git work tree)")
	fs.IntVar(&o.FeedEntries, "feed-entries", publish.DefaultFeedEntries, "how many entries each change feed keeps, newest first")
	fs.BoolVar(&o.LinkFeed, "link-feed", false, "insert the change feed's <link rel=\"alternate\"> into each collection's index.html that has none")
	fs.StringVar(&o.Pings.IndexNowKey, "indexnow-key", "", "the site's IndexNow key: write it to KEY.txt at the site's root and, after a run with changes, submit the changed URLs")
	fs.StringVar(&o.Pings.IndexNowEndpoint, "indexnow-endpoint", publish.DefaultIndexNowEndpoint, "where --indexnow-key submits the changed URLs")
	fs.StringVar(&o.Pings.WebSubHub, "websub-hub", "", "a WebSub hub to ping, after a run with changes, for each changed collection's change list and change feed")
	fs.BoolVar(&allowPrivate, "allow-private-addresses", false, "let the pings reach loopback, private and link-local addresses")
	dirs, err := parsePublishFlags(fs, args, getenv)
	if err != nil {
		return err
	}
	switch {
	case len(dirs) == 0:
		return usageError{"publish needs the site's folder: tidings publish DIR --base-url URL"}
	case len(dirs) > 1:
		return usageError{fmt.Sprintf("publish takes one folder, not %d (%s); give each collection with --collection", len(dirs), strings.Join(dirs, ", "))}
	case o.BaseURL == "":
		return usageError{"publish needs --base-url, the public URL the folder is served at"}
	}
	o.Dir, o.Collections, o.Include, o.History = dirs[0], collections, include, time.Duration(history)
	if o.Pings.IndexNowKey == "" {
		o.Pings.IndexNowEndpoint = ""
	}
	if o.Pings.IndexNowKey != "" || o.Pings.WebSubHub != "" {
		o.Pings.Client = fetch.NewClient(publishClientOptions(allowPrivate))
	}
	res, err := publish.Publish(ctx, o)
	if errors.Is(err, publish.ErrUsage) {
		return usageError{strings.TrimPrefix(err.Error(), publish.ErrUsage.Error()+": ")}
	}
	if err != nil {
		return err
	}
	printPublished(stdout, o.Dir, res)
	return nil
}

// parsePublishFlags parses flags given before and after the folder, then
// fills those not given from the environment.
func parsePublishFlags(fs *flag.FlagSet, args []string, getenv func(string) string) ([]string, error) {
	fs.Usage = func() { publishUsage(fs) }
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, env := range publishEnv {
		if v := getenv(env); v != "" && !set[name] {
			if err := fs.Set(name, v); err != nil {
				return nil, usageError{fmt.Sprintf("%s=%q: %v", env, v, err)}
			}
		}
	}
	return positional, nil
}

func publishUsage(fs *flag.FlagSet) {
	out := fs.Output()
	fmt.Fprintf(out, "Usage: tidings %s\n\nWrites the site's ResourceSync documents into DIR: .well-known/resourcesync and, per collection, a capability list, a resource list and a change list.\n\nFlags:\n", fs.Name())
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(out, "  --%s", f.Name)
		if env := publishEnv[f.Name]; env != "" {
			fmt.Fprintf(out, " (%s)", env)
		}
		fmt.Fprintf(out, "\n    \t%s", f.Usage)
		if f.DefValue != "" {
			fmt.Fprintf(out, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(out)
	})
}

func printPublished(w io.Writer, dir string, res *publish.Result) {
	out := newTermWriter(w)
	for _, warn := range res.Warnings {
		fmt.Fprintf(out, "warning: %s\n", warn)
	}
	for _, c := range res.Collections {
		fmt.Fprintln(out, c.String())
		fmt.Fprintf(out, "  change feed: %s\n", c.Feed)
		if c.Linked {
			fmt.Fprintf(out, "  linked from its index.html: %s\n", c.FeedLink())
		} else {
			fmt.Fprintf(out, "  to link it, paste into a page's <head>: %s\n", c.FeedLink())
		}
	}
	if len(res.Written) == 0 {
		fmt.Fprintf(out, "Nothing changed in %s: no file rewritten.\n", dir)
	} else {
		fmt.Fprintf(out, "Wrote %d file(s) in %s: %s\n", len(res.Written), dir, strings.Join(res.Written, ", "))
	}
	for _, p := range res.Pings {
		fmt.Fprintln(out, p.String())
	}
}

// publishClientOptions are the settings of the client that sends the
// pings: the one client every outbound request goes through.
func publishClientOptions(allowPrivate bool) fetch.ClientOptions {
	v := release()
	if v == "" {
		v = "dev"
	}
	return fetch.ClientOptions{UserAgent: "tidings/" + v + " (publish)", AllowPrivate: allowPrivate}
}
