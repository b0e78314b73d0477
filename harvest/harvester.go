// Package harvest is the core of a harvest: it discovers which of the
// registered sources of change information a site offers, runs a site's
// harvest and each collection's, and stores what a collection's harvest
// found in one transaction. Each source's adapter lives in a package of
// its own (harvest/resourcesync, scp, arc, sitemap, pages; linked by
// harvest/sources) and sees the core only through its exported API:
// Source and Register, SiteDiscovery, CollectionRun and Result. The page
// reader and the snapshots that say what a change did to a page's text
// are the core's, shared by every source.
package harvest

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/pagetext"
	"tidings/source"
)

// Options tune a Harvester.
type Options struct {
	// InitialWindow: on a collection's first harvest, changes older than
	// this are stored as already seen instead of flooding the feed.
	InitialWindow time.Duration
	// Interval between harvests of a site.
	Interval time.Duration
	// DiscoveryInterval: how often a harvest looks for a site's change
	// information everywhere it may be published, rather than only where
	// it was found; 0 = DefaultDiscoveryInterval.
	DiscoveryInterval time.Duration
	Now               func() time.Time
	// Rand returns a number in [0, 1) for the jitter of harvest times.
	Rand   func() float64
	Logger *slog.Logger
	// Sources are the sources' own settings, by source; a source missing
	// takes its defaults.
	Sources source.SettingsSet
	// Snapshots tune the page snapshots that say what a change did to a
	// page's text; the zero value takes them.
	Snapshots SnapshotSettings
	// SiteTimeout bounds one site's harvest; 0 = DefaultSiteTimeout.
	SiteTimeout time.Duration
	// MaxDocuments bounds the documents one site harvest fetches;
	// 0 = DefaultMaxDocuments.
	MaxDocuments int
	// MaxChanges bounds the changes one harvest of a collection holds and
	// stores, so that its memory stays bounded whatever the site serves;
	// the oldest are kept and the rest wait for the next harvest. It
	// applies to the protocols that go on from a watermark (ResourceSync).
	// 0 = DefaultMaxChanges.
	MaxChanges int
	// MaxSiteBytes bounds what one harvest of a site downloads, its
	// discovery, crawl and page reads together (a site whose links are
	// endless bodies); 0 = DefaultMaxSiteBytes: a document of the
	// largest size (--max-body, 50 MiB) and more than a harvest's page
	// fetches of the largest pages read whole. A caller's own budget
	// (fetch.WithBudget, the site check's) takes its place.
	MaxSiteBytes int64
	// DiscoveryDocTimeout bounds each document of a site's discovery,
	// robots.txt included; 0 = DefaultDiscoveryDocTimeout.
	DiscoveryDocTimeout time.Duration
	// RuleBudget is what each of a site's ignore rules may cost in one
	// harvest (pagetext.Noise.Bound); a rule that spends it is switched
	// off. 0 = pagetext.DefaultRuleBudget.
	RuleBudget int64
	// ReadPagesLater makes a follow answer once the change information is
	// read and stored: the pages its first harvest would read for their
	// text (the news' diffs, every page's baseline) are queued instead,
	// and the site is due again at once, so that the scheduler of serve
	// or worker reads them, within the site's politeness, as it runs any
	// harvest. Off, a follow reads them before it returns (the site
	// check, which shows what it read).
	ReadPagesLater bool
	// AfterHarvest, when set, is called after each site harvest has been
	// stored, with what it found (for example to notify a WebSub hub).
	AfterHarvest func(ctx context.Context, rep *SiteReport)
}

// Default option values.
const (
	DefaultSiteTimeout  = 15 * time.Minute
	DefaultMaxDocuments = 2000
	DefaultMaxSiteBytes = 128 << 20
	// DefaultDiscoveryDocTimeout: the documents a discovery reads are
	// small (robots.txt, a home page, a sitemap index), and four
	// discovery workers serve every new follow of an instance.
	DefaultDiscoveryDocTimeout = 20 * time.Second
	DefaultInitialWindow       = 30 * 24 * time.Hour
	DefaultInterval            = 24 * time.Hour
	DefaultDiscoveryInterval   = 7 * 24 * time.Hour
)

// Harvester discovers and harvests sites into the store.
type Harvester struct {
	client *fetch.Client
	store  *db.DB
	opts   Options
}

// New builds a Harvester.
func New(client *fetch.Client, store *db.DB, o Options) *Harvester {
	if o.InitialWindow <= 0 {
		o.InitialWindow = DefaultInitialWindow
	}
	if o.DiscoveryDocTimeout <= 0 {
		o.DiscoveryDocTimeout = DefaultDiscoveryDocTimeout
	}
	if o.MaxSiteBytes <= 0 {
		o.MaxSiteBytes = DefaultMaxSiteBytes
	}
	if o.RuleBudget <= 0 {
		o.RuleBudget = pagetext.DefaultRuleBudget
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.DiscoveryInterval <= 0 {
		o.DiscoveryInterval = DefaultDiscoveryInterval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.SiteTimeout <= 0 {
		o.SiteTimeout = DefaultSiteTimeout
	}
	if o.MaxDocuments <= 0 {
		o.MaxDocuments = DefaultMaxDocuments
	}
	if o.MaxChanges <= 0 {
		o.MaxChanges = DefaultMaxChanges
	}
	o.Snapshots = o.Snapshots.withDefaults()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Harvester{client: client, store: store, opts: o}
}

// SiteReport is what one harvest of a site did.
type SiteReport struct {
	Site        db.Site
	Run         db.Run // the site-level run: discovery and the Source Description
	Collections []CollectionReport
	// Warned are the site-level run's warnings with what each means to
	// the site's owner, when a source said (see Warning).
	Warned []Warning
}

// CollectionReport is one collection's part of a site harvest.
type CollectionReport struct {
	Collection db.Collection
	Run        db.Run
	// Warned are the run's warnings with what each means to the site's
	// owner, when the source said (see Warning).
	Warned []Warning
	// Err is the error the source's harvest returned, which Run.Error
	// says; a source that is an Explainer can explain it.
	Err error
}

// Changes counts the new changes put into feeds.
func (r *SiteReport) Changes() int {
	n := 0
	for _, c := range r.Collections {
		n += c.Run.Changes
	}
	return n
}

// Follow discovers the site that rawURL belongs to, records it and runs its
// first harvest. Following a site already followed refollows it (see
// Refollow) and returns db.ErrAlreadyExists alongside the report. When
// nothing can be followed, the returned error is a *Problem listing what
// was tried, and nothing is stored.
func (h *Harvester) Follow(ctx context.Context, rawURL string) (*SiteReport, error) {
	root, input, err := NormalizeAddress(rawURL)
	if err != nil {
		return nil, err
	}
	if site, err := h.store.SiteByURL(ctx, root); err == nil {
		rep, herr := h.Refollow(ctx, site, input)
		return rep, errors.Join(db.ErrAlreadyExists, herr)
	} else if !errors.Is(err, db.ErrNotFound) {
		return nil, err
	}
	rep, _, err := h.FollowNew(ctx, root, input)
	return rep, err
}

// Refollow follows a stored site again from input, an address normalised
// by NormalizeAddress: it runs a full discovery and harvests the site now.
// The caller has looked the site up, so nothing is looked up again.
func (h *Harvester) Refollow(ctx context.Context, site db.Site, input string) (*SiteReport, error) {
	// Asked to follow it again, tidings looks everywhere again, from the
	// address given this time: a page of a site whose pages are watched
	// is then watched too.
	site.InputURL = input
	return h.harvest(ctx, site, nil, true)
}

// FollowNew discovers a site that is not stored yet, records it and runs
// its first harvest. The discovery says where tidings looked, also when
// nothing could be followed (the error is then a *Problem and nothing is
// stored). A site stored meanwhile by another follow is harvested as it
// is, and db.ErrAlreadyExists returned alongside its report. The
// discovery is nil when the error is the store's rather than the site's.
// The site check runs it on a throwaway store.
func (h *Harvester) FollowNew(ctx context.Context, root, input string) (*SiteReport, *Discovery, error) {
	started := h.opts.Now()
	ctx = h.withSiteBytes(ctx)
	defer h.client.HoldRobots(root)()
	s := newSession(h.client, nil)
	s.budget, s.docTimeout, s.follow = h.newBudget(), h.opts.DiscoveryDocTimeout, true
	sd := newSiteDiscovery(h, s, root, input, db.Site{}, nil, true)
	disc, err := sd.run(ctx)
	if err != nil {
		return nil, disc, err
	}
	site, err := h.store.CreateSite(ctx, db.Site{URL: root, InputURL: input, SourceURL: disc.SourceURL, Title: disc.SiteTitle})
	if errors.Is(err, db.ErrAlreadyExists) {
		// Followed concurrently: harvest what is stored.
		rep, herr := h.harvest(ctx, site, nil, true)
		return rep, disc, errors.Join(db.ErrAlreadyExists, herr)
	}
	if err != nil {
		return nil, nil, err
	}
	rep, err := h.harvest(ctx, site, &siteStep{s: s, started: started, disc: disc, keep: sd.keep, full: true}, false)
	if rep == nil {
		return nil, nil, err
	}
	return rep, disc, err
}

// withSiteBytes gives a site harvest its download budget
// (Options.MaxSiteBytes), unless its caller set one.
func (h *Harvester) withSiteBytes(ctx context.Context) context.Context {
	if fetch.BudgetOf(ctx) != nil {
		return ctx
	}
	b := fetch.NewBudget("this site harvest's download budget", h.opts.MaxSiteBytes)
	return context.WithValue(fetch.WithBudget(ctx, b), siteBytesKey{}, b)
}

// siteBytesKey holds, in a harvest's context, the download budget
// withSiteBytes gave it: the site check's own is not the harvest's to
// warn of.
type siteBytesKey struct{}

// siteBytesSpent reports whether the harvest's own download budget is
// spent, and its size.
func siteBytesSpent(ctx context.Context) (int64, bool) {
	b, _ := ctx.Value(siteBytesKey{}).(*fetch.Budget)
	if b == nil {
		return 0, false
	}
	return b.Max(), b.Left() == 0
}

// Options returns the options the harvester runs with, defaults filled in.
func (h *Harvester) Options() Options { return h.opts }

// WithStore returns a harvester over another store, sharing this one's
// client (its address policy, pacing and robots.txt): a dry run harvests
// into a throwaway database with it.
func (h *Harvester) WithStore(store *db.DB, o Options) *Harvester {
	return New(h.client, store, o)
}

// HarvestSite harvests every collection of a site now. Between two full
// discoveries (Options.DiscoveryInterval) it re-reads only what it knows
// of the site, conditionally.
func (h *Harvester) HarvestSite(ctx context.Context, site db.Site) (*SiteReport, error) {
	return h.harvest(ctx, site, nil, false)
}

// CheckAddress reports whether the client's address policy refuses the
// host of rawURL; see Client.CheckAddress.
func (h *Harvester) CheckAddress(ctx context.Context, rawURL string) error {
	return h.client.CheckAddress(ctx, rawURL)
}

// Backoff after failed harvests: the first retry comes after minBackoff,
// each further one waits twice as long, never longer than the interval.
const minBackoff = 5 * time.Minute

// nextHarvest says when a site is next due. After a success: one interval
// on, give or take a tenth of it at random, so sites followed together
// drift apart instead of all firing at once. After a failure: exponential
// backoff. A Retry-After the site sent is honoured either way.
func (h *Harvester) nextHarvest(started time.Time, failed bool, failuresBefore int, retryAfter time.Duration) time.Time {
	var wait time.Duration
	if failed {
		wait = minBackoff
		for i := 0; i < failuresBefore && wait < h.opts.Interval; i++ {
			wait *= 2
		}
		wait = min(wait, h.opts.Interval)
	} else {
		jitter := (h.opts.Rand()*2 - 1) * 0.1 * float64(h.opts.Interval)
		wait = h.opts.Interval + time.Duration(jitter)
	}
	return started.Add(max(wait, min(retryAfter, maxRetryAfter)))
}

// maxRetryAfter caps how long a Retry-After may postpone a site.
const maxRetryAfter = 7 * 24 * time.Hour

// ErrSiteTimeout is the cause of a site harvest's context ending because
// the site took longer than Options.SiteTimeout; a caller bounding a
// harvest itself gives it as its context's cause to be reported the same.
var ErrSiteTimeout = errors.New("harvest: the site took too long")

// newBudget is the document budget of one site harvest.
func (h *Harvester) newBudget() *atomic.Int64 {
	b := new(atomic.Int64)
	b.Store(int64(h.opts.MaxDocuments))
	return b
}
