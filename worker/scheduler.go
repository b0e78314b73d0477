package worker

import (
	"context"
	"log/slog"
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
	// UnfollowedRetention is how long the history of a site nobody
	// follows any more is kept; 0 = DefaultUnfollowedRetention.
	UnfollowedRetention time.Duration
	// Pool, when set, is the pool whose hosts the scheduler shares with
	// other background work (the discovery queue); else it has its own.
	Pool *Pool
	// Now is the clock that says which sites are due; time.Now when nil.
	Now func() time.Time
	// Logger hears of what went wrong; nothing is logged when nil.
	Logger *slog.Logger
}

// DefaultUnfollowedRetention keeps an unfollowed site's history a month:
// long enough for someone who left by mistake, or a new person, to follow
// it again and find its feeds whole.
const DefaultUnfollowedRetention = 30 * 24 * time.Hour

// Scheduler harvests sites when they are due, with a bounded pool of
// workers, never two harvests of one host at a time. The schedule itself
// is stored (each site's next harvest time), so a restart resumes it, and
// sites that came due while tidings was down are harvested as workers
// free up rather than all at once.
type Scheduler struct {
	store *db.DB
	h     Harvester
	opts  SchedulerOptions
	beat  atomic.Int64
	pool  *lane
}

// NewScheduler builds a scheduler harvesting the sites of store with h.
func NewScheduler(store *db.DB, h Harvester, o SchedulerOptions) *Scheduler {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Tick <= 0 {
		o.Tick = time.Minute
	}
	if o.UnfollowedRetention <= 0 {
		o.UnfollowedRetention = DefaultUnfollowedRetention
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
	s.Sweep(ctx)
	for {
		s.Dispatch(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Sweep(ctx)
		case <-s.pool.freed: // a worker freed up: more due sites may start
		}
	}
}

// Sweep deletes the history of the sites nobody has followed for
// UnfollowedRetention. Sites nobody follows are not harvested (DueSites
// leaves them out); this is when what they stored goes too.
func (s *Scheduler) Sweep(ctx context.Context) {
	n, err := SweepUnfollowed(ctx, s.store, s.opts.Now(), s.opts.UnfollowedRetention)
	if err != nil {
		if ctx.Err() == nil {
			s.opts.Logger.Error("scheduler: delete the history of unfollowed sites", "error", err)
		}
		return
	}
	if n > 0 {
		s.opts.Logger.Info("scheduler: deleted the history of sites nobody follows", "sites", n, "retention", s.opts.UnfollowedRetention)
	}
}

// SweepUnfollowed deletes the history of the sites nobody has followed
// for retention (DefaultUnfollowedRetention when not positive) before
// now, and returns how many sites it emptied: the scheduler does it each
// tick, and tidings harvest for an instance that serves without one.
func SweepUnfollowed(ctx context.Context, store *db.DB, now time.Time, retention time.Duration) (int, error) {
	if retention <= 0 {
		retention = DefaultUnfollowedRetention
	}
	return store.DeleteUnfollowedHistory(ctx, now.Add(-retention))
}

// Dispatch starts harvests of the due sites that a free worker and a free
// host allow, and returns without waiting for them.
func (s *Scheduler) Dispatch(ctx context.Context) {
	now := s.opts.Now()
	s.beat.Store(now.UnixNano())
	sites, err := s.store.DueSites(ctx, now)
	if err != nil {
		if ctx.Err() == nil {
			s.opts.Logger.Error("scheduler: list due sites", "error", err)
		}
		return
	}
	for _, site := range sites {
		if s.pool.tryGo(HostOf(site.URL), func() { s.harvest(ctx, site) }) == poolFull {
			return // every worker is busy; a finishing one calls again
		}
	}
}

func (s *Scheduler) harvest(ctx context.Context, site db.Site) {
	rep, err := s.h.HarvestSite(ctx, site)
	if s.opts.Report != nil && ctx.Err() == nil {
		s.opts.Report(rep, err)
	}
}

// Wait returns when every harvest the scheduler started has ended.
func (s *Scheduler) Wait() { s.pool.wait() }
