// Package follow is the one place a person's actions on sites are done:
// following a site (from the web form, the command line or an OPML
// import), running the discoveries queued for them, harvesting a site
// now, unfollowing, and the command line's harvest of many sites. The web
// handlers and the CLI call it and phrase its results; it applies the
// rules they share: an address is normalised once and its site looked up
// once, a page added to a site whose pages are watched is fetched, a
// person has at most so many discoveries waiting, a site is read on
// request at most so often, a person has quotas (sites followed,
// harvests asked for an hour, bytes their sites store), and history is
// kept only so long.
package follow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/worker"
)

// SiteReport is what one harvest of a site did.
type SiteReport = harvest.SiteReport

// Problem is why a site cannot be followed, as a person may read it.
type Problem = harvest.Problem

// Harvester is what following needs of harvest.Harvester; tests hand in
// one that holds follows.
type Harvester interface {
	// FollowNew discovers and harvests a site not stored yet.
	FollowNew(ctx context.Context, root, input string) (*SiteReport, *harvest.Discovery, error)
	// Refollow discovers and harvests a stored site again.
	Refollow(ctx context.Context, site db.Site, input string) (*SiteReport, error)
	// HarvestSite harvests a stored site.
	HarvestSite(ctx context.Context, site db.Site) (*SiteReport, error)
	// CheckAddress says whether the address policy refuses a host.
	CheckAddress(ctx context.Context, rawURL string) error
}

// Options tune a Service.
type Options struct {
	Logger *slog.Logger
	// MaxPendingDiscoveries is how many discoveries one person may have
	// waiting at once; 0 = DefaultMaxPendingDiscoveries.
	MaxPendingDiscoveries int
	// HarvestNowEvery is how often one site may be read on request;
	// 0 = DefaultHarvestNowEvery.
	HarvestNowEvery time.Duration
	// MaxSitesPerUser is how many sites one person may follow, those
	// waiting to be discovered included; 0 = DefaultMaxSitesPerUser,
	// negative = no limit.
	MaxSitesPerUser int
	// HarvestsPerHour is how many harvests one person may ask for in an
	// hour, adding a page to a watched site included; 0 =
	// DefaultHarvestsPerHour, negative = no limit.
	HarvestsPerHour int
	// MaxStoredPerUser is how many bytes the sites one person follows may
	// store (db.Usage) before they may follow no more sites nor ask for
	// harvests; 0 = DefaultMaxStoredPerUser, negative = no limit.
	MaxStoredPerUser int64
	// Pool, when set, is the host pool the background work shares with
	// the scheduler, so that a discovery or a harvest asked for never
	// fetches from a host a scheduled harvest is reading; else the
	// service has one of its own.
	Pool *worker.Pool
	// Now is the clock of the limits; time.Now when nil.
	Now func() time.Time
	// NoBackground leaves the background work to other processes
	// sharing the database (tidings worker): a discovery is stored for
	// them to take, a harvest asked for makes the site due now, and
	// Start starts nothing.
	NoBackground bool
	// PollEvery is how often a service whose Pool is shared with other
	// processes looks for discoveries none of them has claimed (those
	// another process stored, or one that died left); 0 =
	// DefaultPollEvery.
	PollEvery time.Duration
}

// Defaults of Options.
const (
	// Two hundred waiting discoveries are about an hour of the workers'
	// time when sites are slow: one person's large import then holds at
	// most that much of a queue everyone shares, while an ordinary reading
	// list (a few dozen to a couple of hundred sites) still fits at once.
	DefaultMaxPendingDiscoveries = 200
	DefaultHarvestNowEvery       = 5 * time.Minute
	// A person who follows a site from a web process that runs no
	// background work waits this long at most for a worker to begin.
	DefaultPollEvery = 2 * time.Second
)

// DiscoveryWorkers bounds the discoveries running at once, so an OPML
// import of hundreds of sites does not open hundreds of connections.
const DiscoveryWorkers = 4

// harvestNowWorkers bounds the harvests asked for running at once. They
// have workers of their own, so that one does not wait behind the
// discoveries of a large import.
const harvestNowWorkers = 4

// Service does what people ask of sites. Its background work (the queued
// discoveries, the harvests asked for now) runs from Start until its
// context ends.
type Service struct {
	store *db.DB
	h     Harvester
	opts  Options
	// discoveries and harvests are the queued discoveries and the
	// harvests asked for now.
	discoveries, harvests *worker.Queue
	// harvestNow remembers when each site was last read on request;
	// hourly, the harvests each person asked for in the last hour.
	harvestNow *limiter
	hourly     *window

	// holder names this process in the claims of discoveries.
	holder string
	polls  sync.WaitGroup

	mu         sync.Mutex
	harvesting map[int64]bool // sites harvested on request, queued or running
}

// New builds a Service over store, following with h.
func New(store *db.DB, h Harvester, o Options) *Service {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxPendingDiscoveries <= 0 {
		o.MaxPendingDiscoveries = DefaultMaxPendingDiscoveries
	}
	if o.HarvestNowEvery <= 0 {
		o.HarvestNowEvery = DefaultHarvestNowEvery
	}
	if o.MaxSitesPerUser == 0 {
		o.MaxSitesPerUser = DefaultMaxSitesPerUser
	}
	if o.HarvestsPerHour == 0 {
		o.HarvestsPerHour = DefaultHarvestsPerHour
	}
	if o.MaxStoredPerUser == 0 {
		o.MaxStoredPerUser = DefaultMaxStoredPerUser
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Pool == nil {
		o.Pool = worker.NewPool()
	}
	if o.PollEvery <= 0 {
		o.PollEvery = DefaultPollEvery
	}
	holder := o.Pool.Holder()
	if holder == "" {
		holder = worker.NewHolder()
	}
	return &Service{
		store: store, h: h, opts: o, holder: holder,
		discoveries: worker.NewQueue(o.Pool, DiscoveryWorkers),
		harvests:    worker.NewQueue(o.Pool, harvestNowWorkers),
		harvestNow:  newLimiter(o.HarvestNowEvery),
		hourly:      &window{seen: map[int64][]time.Time{}},
		harvesting:  map[int64]bool{},
	}
}

// Start runs the background work under ctx and resumes the discoveries
// stored as pending. Call it before the first request that may queue
// one, so that none is resumed twice.
//
// With a Pool shared with other processes, it also looks every PollEvery
// for the discoveries none of them has claimed. With NoBackground it
// starts nothing.
func (s *Service) Start(ctx context.Context) {
	if s.opts.NoBackground {
		return
	}
	s.discoveries.Start(ctx)
	s.harvests.Start(ctx)
	pending, err := s.store.PendingDiscoveries(ctx)
	if err != nil {
		s.opts.Logger.Error("resume discoveries", "error", err)
		return
	}
	for _, d := range pending {
		s.discover(resumed(d))
	}
	if s.opts.Pool.Holder() != "" {
		s.polls.Go(func() { s.poll(ctx) })
	}
}

// Wait returns when no background work waits or runs, or, once Start's
// context has ended, when the work under way has stopped.
func (s *Service) Wait() {
	s.polls.Wait()
	s.discoveries.Wait()
	s.harvests.Wait()
}

// SiteRoot returns the root of the site rawURL belongs to, or why it is
// not an address tidings can follow.
func SiteRoot(rawURL string) (string, error) { return harvest.SiteRoot(rawURL) }

// CheckAddress reports whether the address policy refuses the host of
// rawURL.
func (s *Service) CheckAddress(ctx context.Context, rawURL string) error {
	return s.h.CheckAddress(ctx, rawURL)
}

// Follow follows the site rawURL belongs to and harvests it now, for the
// command line: a site not stored yet is discovered; one stored is
// followed again from this address (and db.ErrAlreadyExists is returned
// alongside its report).
func (s *Service) Follow(ctx context.Context, rawURL string) (*SiteReport, error) {
	a, err := ParseAddress(rawURL)
	if err != nil {
		return nil, err
	}
	return s.follow(ctx, a)
}

// follow follows a normalised address, looking its site up once. When
// the site was read over http where https was assumed, its report says
// so among the warnings.
func (s *Service) follow(ctx context.Context, a Address) (*SiteReport, error) {
	site, a, err := s.known(ctx, a)
	if errors.Is(err, db.ErrNotFound) {
		rep, reached, err := s.followNew(ctx, a)
		if say := reached.Say(); say != "" && rep != nil {
			rep.Run.Warnings = append(rep.Run.Warnings, say)
		}
		return rep, err
	}
	if err != nil {
		return nil, err
	}
	rep, err := s.h.Refollow(ctx, site, a.Input)
	return rep, errors.Join(db.ErrAlreadyExists, err)
}

// followNew discovers and harvests a site not stored yet, over http when
// it was typed without its scheme and does not answer over https.
func (s *Service) followNew(ctx context.Context, a Address) (*SiteReport, Reached, error) {
	return Reach(ctx, a, func(ctx context.Context, a Address) (*SiteReport, error) {
		rep, _, err := s.h.FollowNew(ctx, a.Root, a.Input)
		return rep, err
	})
}

// known returns the stored site of an address, and the address as that
// site spells it: one typed without its scheme finds the site tidings
// follows over http when none is stored over https.
func (s *Service) known(ctx context.Context, a Address) (db.Site, Address, error) {
	site, err := s.store.SiteByURL(ctx, a.Root)
	if plain, ok := a.overHTTP(); ok && errors.Is(err, db.ErrNotFound) {
		if site, err := s.store.SiteByURL(ctx, plain.Root); err == nil {
			return site, plain, nil
		}
	}
	return site, a, err
}

// FollowAll follows every address in urls as Follow does, as a batch:
// b.Workers at a time, never two of one host at once; an address of a
// site already followed (earlier in urls too) harvests it again. An
// address that is not one is reported to b.Done with its error and a nil
// report, before the others start.
func (s *Service) FollowAll(ctx context.Context, urls []string, b worker.Batch) error {
	var items []worker.Item
	for _, u := range urls {
		a, err := ParseAddress(u)
		if err != nil {
			if b.Done != nil {
				b.Done(u, nil, err)
			}
			continue
		}
		items = append(items, worker.Item{URL: u, Host: worker.HostOf(a.Root), Do: func(ctx context.Context) (*SiteReport, error) {
			return s.follow(ctx, a)
		}})
	}
	return b.Run(ctx, items)
}

// HarvestSites harvests the given sites now, as a batch (tidings
// harvest).
func (s *Service) HarvestSites(ctx context.Context, sites []db.Site, b worker.Batch) error {
	return worker.HarvestSites(ctx, s.h, sites, b)
}

// HarvestDue harvests the given sites, found due, as a batch (tidings
// harvest): each only if it is still due once its host is held.
func (s *Service) HarvestDue(ctx context.Context, sites []db.Site, b worker.Batch) error {
	return worker.HarvestDueSites(ctx, s.store, s.h, sites, s.opts.Now, b)
}

// Sweep deletes the history retention r no longer keeps and measures
// what each site stores, as serve's scheduler does every hour (see
// worker.Sweep).
func (s *Service) Sweep(ctx context.Context, r worker.Retention) (worker.Swept, error) {
	return worker.Sweep(ctx, s.store, s.opts.Now(), r)
}

// Unfollow takes a site off a person's follows; db.ErrNotFound when they
// did not follow it. The site's last follower leaving stops its harvests.
func (s *Service) Unfollow(ctx context.Context, userID, siteID int64) error {
	return s.store.Unfollow(ctx, userID, siteID)
}

// plural says "1 collection", "3 collections".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
