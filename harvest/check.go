package harvest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"tidings/db"
)

// CheckReport is what a check of a site found, for its owner: each place
// tidings looked and each document it fetched, the collections it would
// follow, every problem with its fix, and the entries the feeds would
// show. Nothing of it is stored.
type CheckReport struct {
	Site    string // the site's root
	Title   string
	Checked time.Time
	// Tried says, in order, where tidings looked for change information
	// and what it found there.
	Tried []string
	// Fetched lists the requests made, in order; FetchedMore counts those
	// past the list's bound.
	Fetched     []CheckFetch
	FetchedMore int
	Collections []CheckCollection
	Problems    []CheckProblem
	// Warnings are what discovery and the harvest noted that no rule of
	// the check explains; shown as they are.
	Warnings []string
	// Followable: tidings found change information it can harvest.
	Followable bool
	// Verdict is one sentence saying whether and how the site can be
	// followed.
	Verdict string
}

// CheckFetch is one request of a check.
type CheckFetch struct {
	URL     string
	Status  int // 0 when no answer came
	OK      bool
	Outcome string // "200 OK, 1234 bytes", "returned 404 Not Found", "was refused: …"
}

// CheckCollection is one collection a check found, with what its first
// harvest would read and show.
type CheckCollection struct {
	Protocol  string
	Key       string
	Title     string
	Source    string // the document it is harvested from
	Documents int
	// Changes counts the changes found; InFeed those a first harvest puts
	// in the feed (the rest are older than --initial-window and stored as
	// already seen).
	Changes int
	InFeed  int
	Error   string // why its harvest failed; "" when it worked
	// Preview holds the newest entries of its feed, one per change, as a
	// reader would see them.
	Preview []PreviewEntry
}

// CheckEntry names one entry of a document.
type CheckEntry struct {
	URL string
	At  time.Time
}

// CheckProblem is one thing a site's owner should fix.
type CheckProblem struct {
	Code    string // one of the Check* codes, stable for scripts and tests
	Doc     string // the document it is in, "" for the site as a whole
	Where   string // the line, page or entry, when known
	Problem string // what is wrong, as a sentence
	Fix     string // what to do about it, as a sentence
	// Blocking: tidings cannot follow the site, or part of it, until it
	// is fixed.
	Blocking bool
}

// PreviewEntry is one feed entry as a reader would see it.
type PreviewEntry struct {
	Title   string
	Link    string
	Updated time.Time
	Summary string // plain text
}

// CheckOptions bound one check; zero fields take the defaults below.
type CheckOptions struct {
	// Timeout bounds the whole check; 0 = the harvester's SiteTimeout.
	Timeout time.Duration
	// MaxDocuments bounds the documents fetched; 0 = the harvester's.
	MaxDocuments int
	// PageFetches bounds the pages read for the preview's titles and
	// text; 0 = DefaultCheckPageFetches (never more than the
	// harvester's), negative = none.
	PageFetches int
	// PreviewEntries is how many entries of each feed are shown;
	// 0 = DefaultPreviewEntries.
	PreviewEntries int
	// TempDir is where the throwaway database is made; "" = os.TempDir.
	TempDir string
}

// Defaults of CheckOptions.
const (
	DefaultCheckPageFetches = 10
	DefaultPreviewEntries   = 5
)

// checkWindow is the first-harvest window of a check's dry run: every
// change goes into the throwaway feed, so that the preview shows the
// newest ones even when a first harvest would put none in the feed.
const checkWindow = 100 * 365 * 24 * time.Hour

// Check looks at the site rawURL belongs to as Follow would, and runs a
// first harvest of every collection it finds, without storing anything:
// the harvest goes into a throwaway database, removed before Check
// returns. What the site gets wrong is in the report, with how to fix it.
// The error is for an address that cannot be checked at all, or for a
// failure of tidings itself; a site that cannot be followed is a report
// whose Followable is false.
func (h *Harvester) Check(ctx context.Context, rawURL string, o CheckOptions) (*CheckReport, error) {
	root, input, err := normalizeInput(rawURL)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(o.TempDir, "tidings-check-")
	if err != nil {
		return nil, fmt.Errorf("harvest: check: %w", err)
	}
	defer os.RemoveAll(dir)
	store, err := db.Open(ctx, filepath.Join(dir, "check.db"))
	if err != nil {
		return nil, fmt.Errorf("harvest: check: %w", err)
	}
	defer store.Close()
	dry := New(h.client, store, h.checkOptions(o))
	log := &checkLog{}
	ctx = withCheckLog(ctx, log)
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, errSiteTimeout)
		defer cancel()
	}
	rep := &CheckReport{Site: root, Checked: dry.opts.Now().UTC()}
	srep, err := dry.checkHarvest(ctx, rep, root, input)
	if err != nil {
		return nil, err
	}
	if srep != nil {
		// What was read is reported even when the check ran out of time.
		if err := dry.checkCollections(context.WithoutCancel(ctx), rep, srep, h.opts.InitialWindow, o); err != nil {
			return nil, err
		}
	}
	rep.Fetched, rep.FetchedMore = log.fetches()
	h.judge(rep, log, srep)
	return rep, nil
}

// checkOptions are the options of a check's dry-run harvester.
func (h *Harvester) checkOptions(o CheckOptions) Options {
	opts := h.opts
	opts.InitialWindow = checkWindow
	opts.AfterHarvest = nil
	// The check is reported, not logged as a harvest.
	opts.Logger = slog.New(slog.DiscardHandler)
	if o.Timeout > 0 {
		opts.SiteTimeout = o.Timeout
	}
	if o.MaxDocuments > 0 {
		opts.MaxDocuments = o.MaxDocuments
	}
	switch {
	case o.PageFetches < 0:
		opts.Snapshots.Off = true
	case o.PageFetches == 0:
		opts.Snapshots.PageFetches = min(opts.Snapshots.PageFetches, DefaultCheckPageFetches)
	default:
		opts.Snapshots.PageFetches = min(opts.Snapshots.PageFetches, o.PageFetches)
	}
	return opts
}

// checkHarvest discovers the site as Follow does, keeping what was tried,
// and harvests what it found into the throwaway store. A nil report means
// nothing could be followed; rep then says why.
func (h *Harvester) checkHarvest(ctx context.Context, rep *CheckReport, root, input string) (*SiteReport, error) {
	started := h.opts.Now()
	defer h.client.HoldRobots(root)()
	s := newSession(h.client, nil)
	s.budget = h.newBudget()
	sd := newSiteDiscovery(s, root, input, db.Site{}, nil, true)
	disc, derr := sd.run(ctx)
	rep.Tried = disc.Tried
	rep.Title = disc.SiteTitle
	if derr != nil {
		rep.Warnings = append(rep.Warnings, disc.Warnings...)
		rep.Problems = append(rep.Problems, nothingFound(derr, checkLogOf(ctx).fetchList()))
		return nil, nil
	}
	site, err := h.store.CreateSite(ctx, db.Site{URL: root, InputURL: input, SourceURL: disc.SourceURL, Title: disc.SiteTitle})
	if err != nil {
		return nil, err
	}
	return h.harvest(ctx, site, &siteStep{s: s, started: started, disc: disc, keep: sd.keep, full: true}, false)
}

// checkCollections fills in each collection: what its harvest read, how
// many changes a first harvest puts in its feed, and its preview.
func (h *Harvester) checkCollections(ctx context.Context, rep *CheckReport, srep *SiteReport, window time.Duration, o CheckOptions) error {
	inFeed := map[int64]int{}
	since := rep.Checked.Add(-window)
	err := h.store.ExportChanges(ctx, db.ExportFilter{SiteURL: srep.Site.URL}, func(c db.ExportedChange) error {
		if !c.Datetime.Before(since) {
			inFeed[c.CollectionID]++
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, cr := range srep.Collections {
		c := cr.Collection
		cc := CheckCollection{Protocol: c.Protocol, Key: c.Key, Title: c.Title, Source: c.SourceURL,
			Documents: cr.Run.Documents, Changes: cr.Run.Changes + cr.Run.Backfilled, InFeed: inFeed[c.ID], Error: cr.Run.Error}
		if cc.Preview, err = h.preview(ctx, c.ID, o.PreviewEntries); err != nil {
			return err
		}
		rep.Collections = append(rep.Collections, cc)
	}
	return nil
}
