package harvest

import (
	"context"
	"net/url"
	"sync"
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
}

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

	mu       sync.Mutex
	inFlight map[int64]bool
	hosts    map[string]bool
	wg       sync.WaitGroup
	sem      chan struct{}
	done     chan struct{}
}

// NewScheduler builds a scheduler over h.
func (h *Harvester) NewScheduler(o SchedulerOptions) *Scheduler {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Tick <= 0 {
		o.Tick = time.Minute
	}
	return &Scheduler{
		h: h, opts: o, inFlight: map[int64]bool{}, hosts: map[string]bool{},
		sem: make(chan struct{}, o.Workers), done: make(chan struct{}, 1),
	}
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
	defer s.wg.Wait()
	for {
		s.Dispatch(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.done: // a worker freed up: more due sites may start
		}
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
		host := hostOf(site.URL)
		s.mu.Lock()
		busy := s.inFlight[site.ID] || s.hosts[host]
		s.mu.Unlock()
		if busy {
			continue
		}
		select {
		case s.sem <- struct{}{}:
		default:
			return // every worker is busy; a finishing one calls again
		}
		s.start(ctx, site, host)
	}
}

func (s *Scheduler) start(ctx context.Context, site db.Site, host string) {
	s.mu.Lock()
	s.inFlight[site.ID], s.hosts[host] = true, true
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		rep, err := s.h.HarvestSite(ctx, site)
		s.mu.Lock()
		delete(s.inFlight, site.ID)
		delete(s.hosts, host)
		s.mu.Unlock()
		<-s.sem
		if s.opts.Report != nil && ctx.Err() == nil {
			s.opts.Report(rep, err)
		}
		select {
		case s.done <- struct{}{}:
		default:
		}
	}()
}

// Wait returns when every harvest the scheduler started has ended.
func (s *Scheduler) Wait() { s.wg.Wait() }

// hostOf is the politeness key of a site: its host and port, as each port
// may be another server.
func hostOf(siteURL string) string {
	u, err := url.Parse(siteURL)
	if err != nil {
		return siteURL
	}
	return u.Host
}
