package harvest

import (
	"context"
	"sync/atomic"
	"time"

	"tidings/db"
)

// SchedulerOptions tune a Scheduler.
type SchedulerOptions struct {
	Workers int           // harvests at once; 0 = DefaultWorkers
	Tick    time.Duration // how often due sites are looked for; 0 = one minute
	// Report, when set, hears of every harvest the scheduler ran.
	Report func(*SiteReport, error)
	// UnfollowedRetention is how long the history of a site nobody
	// follows any more is kept; 0 = DefaultUnfollowedRetention.
	UnfollowedRetention time.Duration
}

// DefaultUnfollowedRetention keeps an unfollowed site's history a month:
// long enough for someone who left by mistake, or a new person, to follow
// it again and find its feeds whole.
const DefaultUnfollowedRetention = 30 * 24 * time.Hour

// DefaultWorkers is how many sites are harvested at once.
const DefaultWorkers = 4

// Scheduler harvests sites when they are due, with a bounded pool of
// workers, never two harvests of one host at a time. The schedule itself
// is stored (each site's next harvest time), so a restart resumes it, and
// sites that came due while tidings was down are harvested as workers
// free up rather than all at once.
type Scheduler struct {
	h    *Harvester
	opts SchedulerOptions
	beat atomic.Int64
	pool *hostPool
}

// NewScheduler builds a scheduler over h.
func (h *Harvester) NewScheduler(o SchedulerOptions) *Scheduler {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Tick <= 0 {
		o.Tick = time.Minute
	}
	if o.UnfollowedRetention <= 0 {
		o.UnfollowedRetention = DefaultUnfollowedRetention
	}
	return &Scheduler{h: h, opts: o, pool: newHostPool(o.Workers)}
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
	n, err := s.h.store.DeleteUnfollowedHistory(ctx, s.h.opts.Now().Add(-s.opts.UnfollowedRetention))
	if err != nil {
		if ctx.Err() == nil {
			s.h.opts.Logger.Error("scheduler: delete the history of unfollowed sites", "error", err)
		}
		return
	}
	if n > 0 {
		s.h.opts.Logger.Info("scheduler: deleted the history of sites nobody follows", "sites", n, "retention", s.opts.UnfollowedRetention)
	}
}

// Dispatch starts harvests of the due sites that a free worker and a free
// host allow, and returns without waiting for them.
func (s *Scheduler) Dispatch(ctx context.Context) {
	now := s.h.opts.Now()
	s.beat.Store(now.UnixNano())
	sites, err := s.h.store.DueSites(ctx, now)
	if err != nil {
		if ctx.Err() == nil {
			s.h.opts.Logger.Error("scheduler: list due sites", "error", err)
		}
		return
	}
	for _, site := range sites {
		if s.pool.tryGo(hostOf(site.URL), func() { s.harvest(ctx, site) }) == poolFull {
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
