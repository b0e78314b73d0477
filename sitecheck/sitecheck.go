package sitecheck

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
)

// Report is what a check of a site found, for its owner: each place
// tidings looked and each document it fetched, the collections it would
// follow, every problem with its fix, and the entries the feeds would
// show. Nothing of it is stored.
type Report struct {
	Site    string // the site's root
	Title   string
	Checked time.Time
	// Found says what each document that gave change information is;
	// Tried says, in order, where else tidings looked and what it met
	// there, each once.
	Found []string
	Tried []string
	// Fetched lists the requests made, in order; FetchedMore counts those
	// past the list's bound.
	Fetched     []Fetch
	FetchedMore int
	// Downloaded is what the check read, of DownloadBudget at most.
	Downloaded, DownloadBudget int64
	// Window is the first-harvest window: following the site puts the
	// changes of this span in its feeds, and keeps the older ones as
	// already seen.
	Window      time.Duration
	Collections []Collection
	Problems    []Problem
	// Warnings are what discovery and the harvest noted that no rule of
	// the check explains; shown as they are.
	Warnings []string
	// Followable: tidings found change information it can harvest.
	Followable bool
	// Verdict is one sentence saying whether and how the site can be
	// followed.
	Verdict string
}

// Answered reports whether any request of the check got an HTTP answer,
// whatever its status.
func (r *Report) Answered() bool {
	return r.FetchedMore > 0 || slices.ContainsFunc(r.Fetched, func(f Fetch) bool { return f.Status != 0 })
}

// Fetch is one request of a check.
type Fetch struct {
	URL     string
	Status  int // 0 when no answer came
	OK      bool
	Outcome string // "200 OK, 1234 bytes", "returned 404 Not Found", "was refused: …"
}

// Collection is one collection a check found, with what its first
// harvest would read and show.
type Collection struct {
	Protocol  string
	Key       string
	Title     string
	Source    string // the document it is harvested from
	Documents int
	// Pages counts the pages the collection lists: those of its resource
	// list (PagesFrom) when it has one, else those its harvest found.
	Pages     int
	PagesFrom string
	// Changes counts the changes found; InFeed those a first harvest puts
	// in the feed (the rest are older than --initial-window and stored as
	// already seen).
	Changes int
	InFeed  int
	Error   string // why its harvest failed; "" when it worked
	// failure is the error Error says, for its source to explain.
	failure error
	// Outcome says in one sentence what was read, what the collection
	// holds and what following it now would put in its feed; the web page
	// and the command line say the same.
	Outcome string
	// Preview holds the newest entries of its feed, one per change, as a
	// reader would see them.
	Preview []PreviewEntry
}

// Entry names one entry of a document.
type Entry struct {
	URL string
	At  time.Time
}

// Problem is one thing a site's owner should fix.
type Problem struct {
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

// Options bound one check; zero fields take the defaults below.
type Options struct {
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
	// MaxBytes bounds what the whole check downloads, its documents and
	// pages together; 0 = DefaultCheckBytes. Anyone may start a check, so
	// no site can make one cost more, however many large files it links.
	MaxBytes int64
	// Private: the check is for someone who may not learn what this
	// tidings follows (anyone at all, on the public page), so it does not
	// compare what it reads with what was stored of the site.
	Private bool
}

// Defaults of Options.
const (
	DefaultCheckPageFetches = 10
	DefaultPreviewEntries   = 5
	DefaultCheckBytes       = 23 << 20
)

// checkWindow is the first-harvest window of a check's dry run: every
// change goes into the throwaway feed, so that the preview shows the
// newest ones even when a first harvest would put none in the feed.
const checkWindow = 100 * 365 * 24 * time.Hour

// Checker checks sites with a harvester's client and settings.
type Checker struct {
	h       *harvest.Harvester
	history History
}

// New returns a Checker that runs its dry runs as h would harvest.
func New(h *harvest.Harvester) *Checker { return &Checker{h: h} }

// Check looks at the site rawURL belongs to as a follow would, and runs a
// first harvest of every collection it finds, without storing anything:
// the harvest goes into a throwaway database, removed before Check
// returns. What the site gets wrong is in the report, with how to fix it.
// The error is for an address that cannot be checked at all, or for a
// failure of tidings itself; a site that cannot be followed is a report
// whose Followable is false. An address typed without its scheme is
// checked over https, and over http when nothing answers over https, as
// following it would (follow.Reach); the report then says so.
func (ck *Checker) Check(ctx context.Context, rawURL string, o Options) (*Report, error) {
	a, err := follow.ParseAddress(rawURL)
	if err != nil {
		return nil, err
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultCheckBytes
	}
	// Both attempts share the bounds of one check.
	budget := fetch.NewBudget("the check's download budget", o.MaxBytes)
	ctx = fetch.WithBudget(ctx, budget)
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, harvest.ErrSiteTimeout)
		defer cancel()
	}
	rep, reached, err := follow.Reach(ctx, a, func(ctx context.Context, a follow.Address) (*Report, error) {
		return ck.check(ctx, a.Root, a.Input, o)
	})
	if err != nil {
		return nil, err
	}
	rep.Downloaded, rep.DownloadBudget = budget.Used(), budget.Max()
	if reached.FellBack {
		rep.Problems = append(rep.Problems, noHTTPS(reached))
		rep.Verdict = verdict(rep)
	}
	for i := range rep.Problems {
		rep.Problems[i].Problem = capital(sentence(rep.Problems[i].Problem))
	}
	for i, w := range rep.Warnings {
		rep.Warnings[i] = capital(w)
	}
	return rep, nil
}

// check is one attempt of Check, at one address.
func (ck *Checker) check(ctx context.Context, root, input string, o Options) (*Report, error) {
	dir, err := os.MkdirTemp(o.TempDir, "tidings-check-")
	if err != nil {
		return nil, fmt.Errorf("sitecheck: %w", err)
	}
	defer os.RemoveAll(dir)
	store, err := db.Open(ctx, filepath.Join(dir, "check.db"))
	if err != nil {
		return nil, fmt.Errorf("sitecheck: %w", err)
	}
	defer store.Close()
	opts := ck.dryOptions(o)
	dry := ck.h.WithStore(store, opts)
	log := &checkLog{}
	ctx = log.attach(ctx)
	rep := &Report{Site: root, Checked: opts.Now().UTC(), Window: ck.h.Options().InitialWindow}
	srep, disc, err := dry.FollowNew(ctx, root, input)
	if disc != nil {
		rep.Tried = disc.TriedOnce()
		rep.Title = disc.SiteTitle
	}
	switch {
	case srep == nil && disc != nil && err != nil:
		// Nothing could be followed: the report says why.
		for _, w := range disc.Warned {
			rep.Warnings = append(rep.Warnings, w.Text)
		}
		rep.Problems = append(rep.Problems, nothingFound(err, log.fetchList()))
	case err != nil:
		return nil, err
	default:
		// What was read is reported even when the check ran out of time.
		c := collector{store: store, window: rep.Window, o: o, log: log}
		if err := c.collections(context.WithoutCancel(ctx), rep, srep); err != nil {
			return nil, err
		}
		if err := ck.judgeLastmods(context.WithoutCancel(ctx), rep, srep.Site.URL, store, o.Private); err != nil {
			return nil, err
		}
	}
	rep.Found = found(log, rep.Collections)
	rep.Tried = oneVerdict(rep.Tried, rep.Found)
	rep.Fetched, rep.FetchedMore = log.fetches()
	judge(rep, log, srep)
	return rep, nil
}

// dryOptions are the options of a check's dry-run harvester.
func (ck *Checker) dryOptions(o Options) harvest.Options {
	opts := ck.h.Options()
	opts.InitialWindow = checkWindow
	opts.AfterHarvest = nil
	// The preview shows what the pages' texts say: no harvest follows.
	opts.ReadPagesLater = false
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

// collector reads a check's throwaway store back.
type collector struct {
	store  *db.DB
	window time.Duration
	o      Options
	log    *checkLog
}

// checkCollections fills in each collection: what its harvest read, how
// many changes a first harvest puts in its feed, and its preview.
func (c *collector) collections(ctx context.Context, rep *Report, srep *harvest.SiteReport) error {
	inFeed := map[int64]int{}
	since := rep.Checked.Add(-c.window)
	err := c.store.ExportChanges(ctx, db.ExportFilter{SiteURL: srep.Site.URL}, func(ch db.ExportedChange) error {
		if !ch.Datetime.Before(since) {
			inFeed[ch.CollectionID]++
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, cr := range srep.Collections {
		col := cr.Collection
		cc := Collection{Protocol: col.Protocol, Key: col.Key, Title: col.Title, Source: col.SourceURL,
			Documents: cr.Run.Documents, Pages: cr.Run.Pages, Changes: cr.Run.Changes + cr.Run.Backfilled, InFeed: inFeed[col.ID],
			Error: cr.Run.Error, failure: cr.Err}
		if list, ok := c.log.pageList(col.SourceURL); ok && cc.Error == "" {
			cc.Pages, cc.PagesFrom = list.Pages, list.URL
		}
		if cc.Preview, err = c.preview(ctx, col.ID, c.o.PreviewEntries); err != nil {
			return err
		}
		cc.Outcome = collectionOutcome(cc, c.window)
		rep.Collections = append(rep.Collections, cc)
	}
	return nil
}
