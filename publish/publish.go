// Package publish is the author's side of IFCC-0001: it reads a static
// site's folder, as it is uploaded, and writes into it the ResourceSync
// documents that make the site followable precisely — the Source
// Description at .well-known/resourcesync and, per collection, a
// capability list, a resource list, and a change list (with a change list
// index once lists are archived).
//
// Its only I/O is the site's folder and, for dating changes, git. It
// compares the folder with the resource list it wrote last time, so the
// documents it wrote are its whole state.
package publish

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"
)

// Datetime modes: how a change is dated.
const (
	// DatetimeAuto is git inside a git work tree, else now.
	DatetimeAuto = ""
	// DatetimeGit dates a change by the last commit that touched the file,
	// or the run's time when the file's current state is not committed.
	DatetimeGit = "git"
	// DatetimeNow dates every change found by the run's time.
	DatetimeNow = "now"
)

// DefaultFolder is where the per-collection documents are written, under
// the site's root.
const DefaultFolder = "resourcesync"

// DefaultMaxListEntries is how many entries a change list holds before it
// is archived and a new one begun.
const DefaultMaxListEntries = 1000

// maxPages bounds one collection: a sitemap holds at most 50,000 URLs.
const maxPages = 50000

// Options say what to publish. Dir and BaseURL are required.
type Options struct {
	// Dir is the site's folder, as it is uploaded.
	Dir string
	// BaseURL is the public URL of Dir, http or https.
	BaseURL string
	// Collections are folders of the site (slash-separated, relative to
	// Dir), each its own collection; none means the whole site is one.
	Collections []string
	// Include are globs of files that count as pages besides HTML pages. A
	// glob with a slash is matched against the path from the site's root,
	// one without against the file's name.
	Include []string
	// Folder is where the collections' documents go, relative to Dir
	// (DefaultFolder when empty). It is never read for pages.
	Folder string
	// Datetime is DatetimeAuto, DatetimeGit or DatetimeNow.
	Datetime string
	// History, on the first run in a git work tree, fills the change list
	// from the commits of this period before the run.
	History time.Duration
	// MaxListEntries is how many entries make a change list full
	// (DefaultMaxListEntries when 0).
	MaxListEntries int
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	// Note is the note of every change this run finds, unless a page
	// carries a new one of its own.
	Note string
	// FeedEntries is how many entries each change feed keeps
	// (DefaultFeedEntries when 0).
	FeedEntries int
	// LinkFeed inserts the <link rel="alternate"> of its change feed into
	// each collection's index page that has none.
	LinkFeed bool
	// Pings, all off when empty.
	Pings PingOptions
}

// Result says what a run did.
type Result struct {
	// Collections are in the order given.
	Collections []CollectionResult
	// Written are the files written, slash-separated, relative to Dir; a
	// file whose bytes would not change is not written.
	Written []string
	// Warnings name pages left out and other things the author may fix.
	Warnings []string
	// Pings are what the IndexNow endpoint and the WebSub hub answered,
	// when they were asked.
	Pings []PingResult
}

// CollectionResult is what a run found in one collection.
type CollectionResult struct {
	// Path is the collection's folder ("" for the whole site).
	Path string
	// URL identifies the collection: its rs:ln rel="describes".
	URL string
	// CapabilityList is the URL of its capability list.
	CapabilityList string
	// Pages is how many pages it has now.
	Pages int
	// First is set when no resource list was found: the run began the
	// collection's history.
	First bool
	// Created, Updated and Deleted count the changes the run added.
	Created, Updated, Deleted int
	// Archived counts the change lists the run closed.
	Archived int
	// Feed is the URL of its change feed (Atom; the JSON Feed is beside
	// it, .json for .atom), and FeedTitle the feed's title.
	Feed, FeedTitle string
	// Linked is set, with LinkFeed, when the collection's index page
	// links its change feed: the run inserted the link, or found it.
	Linked bool
}

// Changes is the number of changes the run added to the collection.
func (c CollectionResult) Changes() int { return c.Created + c.Updated + c.Deleted }

// ErrUsage marks a mistake in the Options (wrapped with errors.Is).
var ErrUsage = errors.New("publish: bad options")

func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// normalize checks the options and fills the defaults.
func (o *Options) normalize() error {
	if o.Dir == "" {
		return usagef("the site's folder is required")
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return usagef("--base-url %q is not an absolute http or https URL", o.BaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return usagef("--base-url %q has a query or fragment; give the URL the site's folder is served at", o.BaseURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	o.BaseURL = u.String()
	if o.Folder == "" {
		o.Folder = DefaultFolder
	}
	folder, err := cleanRel(o.Folder)
	if err != nil || folder == "" {
		return usagef("--folder %q must be a folder inside the site", o.Folder)
	}
	if isHiddenPath(folder) {
		return usagef("--folder %q is hidden (a name starting with a dot), and static hosts may not serve it", o.Folder)
	}
	o.Folder = folder
	switch o.Datetime {
	case DatetimeAuto, DatetimeGit, DatetimeNow:
	default:
		return usagef("--datetime must be git or now, not %q", o.Datetime)
	}
	if o.History < 0 {
		return usagef("--history must not be negative")
	}
	if o.History > 0 && o.Datetime == DatetimeNow {
		return usagef("--history reads the dates of commits; it cannot be used with --datetime now")
	}
	for _, g := range o.Include {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return usagef("--include %q is not a glob", g)
		}
	}
	if o.MaxListEntries <= 0 {
		o.MaxListEntries = DefaultMaxListEntries
	}
	if o.FeedEntries < 0 || o.FeedEntries > MaxFeedEntries {
		return usagef("--feed-entries must be between 1 and %d", MaxFeedEntries)
	}
	if o.FeedEntries == 0 {
		o.FeedEntries = DefaultFeedEntries
	}
	o.Note = cleanNote(o.Note)
	if err := o.Pings.normalize(); err != nil {
		return err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o.normalizeCollections()
}

func (o *Options) normalizeCollections() error {
	if len(o.Collections) == 0 {
		o.Collections = []string{""}
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range o.Collections {
		rel, err := cleanRel(c)
		if err != nil {
			return usagef("--collection %q must be a folder inside the site", c)
		}
		if isHiddenPath(rel) || rel == o.Folder || strings.HasPrefix(rel, o.Folder+"/") {
			return usagef("--collection %q is a hidden folder or the folder tidings writes to, which hold no pages", c)
		}
		if !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	o.Collections = out
	return nil
}

// cleanRel turns a slash-separated folder inside the site into its clean
// form, "" for the root; it refuses paths leaving the site.
func cleanRel(p string) (string, error) {
	p = strings.ReplaceAll(p, "\\", "/")
	c := path.Clean("/" + p)
	if c == "/" {
		return "", nil
	}
	c = strings.TrimPrefix(c, "/")
	if slices.Contains(strings.Split(p, "/"), "..") {
		return "", errors.New("leaves the site")
	}
	return c, nil
}

// isHiddenPath reports whether a slash path has a segment starting with a
// dot, which static hosts and generators commonly leave out.
func isHiddenPath(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// Publish reads the site and writes its ResourceSync documents. A run that
// finds nothing changed writes no file. On an error, the documents already
// in the folder are left as they were or replaced whole, never cut short.
func Publish(ctx context.Context, o Options) (*Result, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	site, err := readSite(&o)
	if err != nil {
		return nil, err
	}
	var linked map[string]bool
	if o.LinkFeed {
		var warnings []string
		var inserted bool
		if linked, inserted, warnings, err = linkFeeds(&o); err != nil {
			return nil, err
		}
		if inserted {
			if site, err = readSite(&o); err != nil {
				return nil, err
			}
		}
		site.warnings = append(site.warnings, warnings...)
	}
	now := o.Now().UTC().Truncate(time.Second)
	d, err := newDater(ctx, &o, now)
	if err != nil {
		return nil, err
	}
	p := &run{o: &o, site: site, now: now, dater: d, res: &Result{Warnings: site.warnings}}
	var plans []*plan
	for _, rel := range o.Collections {
		pl, err := p.plan(ctx, rel)
		if err != nil {
			return nil, err
		}
		plans = append(plans, pl)
	}
	if err := p.write(plans); err != nil {
		return nil, err
	}
	for i := range p.res.Collections {
		p.res.Collections[i].Linked = linked[p.res.Collections[i].Path]
	}
	if key := o.Pings.keyFile(); key != "" {
		if err := noLinks(o.Dir, key); err != nil {
			return nil, err
		}
		if err := p.writeFile(outFile{key, []byte(o.Pings.IndexNowKey)}); err != nil {
			return nil, err
		}
	}
	p.ping(ctx, plans)
	return p.res, nil
}
