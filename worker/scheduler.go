package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"tidings/db"
	"tidings/harvest"
)

// SchedulerOptions tune a Scheduler.
type SchedulerOptions struct {
	Workers int           // harvests at once; 0 = DefaultWorkers
	Tick    time.Duration // how often due sites are looked for; 0 = one minute
	// Report, when set, hears of every harvest the scheduler ran.
	Report func(*harvest.SiteReport, error)
	// Retention says how long history is kept (see Sweep).
	Retention Retention
	// SweepEvery is how often the scheduler sweeps; 0 = DefaultSweepEvery.
	SweepEvery time.Duration
	// Pool, when set, is the pool whose hosts the scheduler shares with
	// other background work (the discovery queue); else it has its own.
	Pool *Pool
	// Now is the clock that says which sites are due; time.Now when nil.
	Now func() time.Time
	// Logger hears of what went wrong; nothing is logged when nil.
	Logger *slog.Logger
}

// DefaultSweepEvery: the sweep reads every collection's oldest change and
// measures the sites harvested since the last; hourly, what it deletes
// stays within an hour of its retention, and a person's quota of stored
// bytes within an hour of their harvests.
const DefaultSweepEvery = time.Hour

// Scheduler harvests sites when they are due, with a bounded pool of
// workers, never two harvests of one host at a time. The schedule itself
// is stored (each site's next harvest time), so a restart resumes it, and
// sites that came due while tidings was down are harvested as workers
// free up rather than all at once.
type Scheduler struct {
	store    *db.DB
	h        Harvester
	opts     SchedulerOptions
	beat     atomic.Int64
	pool     *lane
	swept    time.Time   // when Run last started a sweep
	sweeping atomic.Bool // a sweep runs
	// pausedAt is when the database stopped answering the list of due
	// sites (Unix nanoseconds), 0 while it answers.
	pausedAt atomic.Int64
}

// PauseRetry is how often a scheduler paused by a database that does not
// answer asks it again: harvests resume within this of its return, not
// at the next tick.
const PauseRetry = 5 * time.Second

// NewScheduler builds a scheduler harvesting the sites of store with h.
func NewScheduler(store *db.DB, h Harvester, o SchedulerOptions) *Scheduler {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Tick <= 0 {
		o.Tick = time.Minute
	}
	if o.SweepEvery <= 0 {
		o.SweepEvery = DefaultSweepEvery
	}
	if o.Pool == nil {
		o.Pool = NewPool()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{store: store, h: h, opts: o, pool: o.Pool.lane(o.Workers)}
}

// Heartbeat returns when the scheduler last looked for due sites.
func (s *Scheduler) Heartbeat() time.Time {
	n := s.beat.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// Run harvests due sites until ctx ends, then waits for the harvests under
// way: they stop at their next document and store what they completed.
func (s *Scheduler) Run(ctx context.Context) {
	t := time.NewTicker(s.opts.Tick)
	defer t.Stop()
	defer s.pool.wait()
	var sweeps sync.WaitGroup
	defer sweeps.Wait()
	s.sweepDue(ctx, &sweeps)
	for {
		s.Dispatch(ctx)
		var retry <-chan time.Time
		if s.Paused() {
			retry = time.After(PauseRetry)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.sweepDue(ctx, &sweeps)
		case <-retry:
		case <-s.pool.freed: // a worker freed up: more due sites may start
		}
	}
}

// sweepDue starts a sweep in wg when SweepEvery has passed since Run last
// did and none runs. Beside the harvests, not before them: the first
// sweep of years of history, or after an upgrade that measures every
// site, takes a while.
func (s *Scheduler) sweepDue(ctx context.Context, wg *sync.WaitGroup) {
	now := s.opts.Now()
	if !s.swept.IsZero() && now.Sub(s.swept) < s.opts.SweepEvery || !s.sweeping.CompareAndSwap(false, true) {
		return
	}
	s.swept = now
	wg.Go(func() {
		defer s.sweeping.Store(false)
		s.Sweep(ctx)
	})
}

// Sweep deletes the history the retention no longer keeps, and measures
// what each site stores (see the function Sweep), logging what it did.
//
// Of several processes sharing the database, one sweeps in each
// SweepEvery: the others would only delete what it deletes, and measure
// again what it measured.
func (s *Scheduler) Sweep(ctx context.Context) {
	if !s.takeSweep(ctx) {
		return
	}
	if err := s.store.PruneHostLeases(ctx); err != nil && ctx.Err() == nil {
		s.opts.Logger.Error("scheduler: prune host leases", "error", err)
	}
	r := s.opts.Retention.withDefaults()
	sw, err := Sweep(ctx, s.store, s.opts.Now(), r)
	if err != nil {
		if ctx.Err() == nil {
			s.opts.Logger.Error("scheduler: sweep history", "error", err)
		}
		return
	}
	if sw.Emptied > 0 {
		s.opts.Logger.Info("scheduler: deleted the history of sites nobody follows", "sites", sw.Emptied, "retention", r.Unfollowed)
	}
	if sw.Changes > 0 || sw.Runs > 0 || sw.Snapshots > 0 {
		s.opts.Logger.Info("scheduler: deleted history past its retention", "changes", sw.Changes, "collections", sw.Collections,
			"runs", sw.Runs, "snapshots", sw.Snapshots, "keep_changes_for", r.KeepChangesFor, "keep_changes", r.KeepChanges)
	}
	if sw.Share.Sites > 0 {
		s.opts.Logger.Info("scheduler: deleted the oldest changes of sites past their share", "sites", sw.Share.Sites,
			"changes", sw.Share.Changes, "runs", sw.Share.Runs, "snapshots", sw.Share.Snapshots, "site_share", r.SiteShare)
	}
	if sw.Share.Over > 0 {
		s.opts.Logger.Warn("scheduler: sites still past their share keeping only their newest changes", "sites", sw.Share.Over,
			"site_share", r.SiteShare, "keep_changes", r.KeepChanges)
	}
}

// sweepLease is the sweep's lease among the hosts' (no host is named
// so): its holder is the process that sweeps, until SweepEvery from when
// it took it.
const sweepLease = "(sweep)"

// takeSweep reports whether this process sweeps now: always when its
// pool is its own; else when it takes the sweep's lease (or has it).
func (s *Scheduler) takeSweep(ctx context.Context) bool {
	holder := s.opts.Pool.Holder()
	if holder == "" {
		return true
	}
	ok, err := s.store.TakeHost(ctx, sweepLease, holder, s.opts.SweepEvery)
	if err != nil && ctx.Err() == nil {
		s.opts.Logger.Error("scheduler: take the sweep's turn", "error", err)
	}
	return ok
}

// Dispatch starts harvests of the due sites that a free worker and a free
// host allow, and returns without waiting for them.
func (s *Scheduler) Dispatch(ctx context.Context) {
	now := s.opts.Now()
	s.beat.Store(now.UnixNano())
	sites, err := s.store.DueSites(ctx, now)
	if err != nil {
		if ctx.Err() == nil {
			s.pause(err)
		}
		return
	}
	s.resume()
	for _, site := range sites {
		if s.pool.tryGo(ctx, HostOf(site.URL), func(ctx context.Context) { s.harvest(ctx, site) }) == poolFull {
			return // every worker is busy; a finishing one calls again
		}
	}
}

// Paused reports whether the database did not answer the last look for
// due sites: no harvest starts until it does.
func (s *Scheduler) Paused() bool { return s.pausedAt.Load() != 0 }

// pause says once, not at every retry, that harvests wait for the
// database. A harvest under way when it went stores nothing: its site
// stays due and is harvested again after.
func (s *Scheduler) pause(err error) {
	if s.pausedAt.CompareAndSwap(0, time.Now().UnixNano()) {
		s.opts.Logger.Error("scheduler: the database does not answer; harvests are paused until it does", "error", err)
	}
}

// resume says harvests go on, and after how long.
func (s *Scheduler) resume() {
	if at := s.pausedAt.Swap(0); at != 0 {
		s.opts.Logger.Info("scheduler: the database answers again; harvests resume",
			"paused_for", time.Since(time.Unix(0, at)).Round(time.Millisecond).String())
	}
}

// harvest harvests a site found due, once its host is held, if it still
// is: another process, or a harvest asked for here, may have harvested
// it since the list of due sites was read. With the host held, none can
// meanwhile, so the host's lease is the site's claim too.
func (s *Scheduler) harvest(ctx context.Context, site db.Site) {
	fresh, err := s.store.SiteByID(ctx, site.ID)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, db.ErrNotFound) {
			s.opts.Logger.Error("scheduler: read a due site again", "site", site.URL, "error", err)
		}
		return
	}
	if !due(fresh, s.opts.Now()) {
		return
	}
	rep, err := s.h.HarvestSite(ctx, fresh)
	if s.opts.Report != nil && ctx.Err() == nil {
		s.opts.Report(rep, err)
	}
}

// due is DueSites' rule for one site.
func due(site db.Site, now time.Time) bool {
	return site.UnfollowedAt == nil && (site.NextHarvestAt == nil || !site.NextHarvestAt.After(now))
}

// Wait returns when every harvest the scheduler started has ended.
func (s *Scheduler) Wait() { s.pool.wait() }
