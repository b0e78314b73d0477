// Package worker runs tidings' background work: the scheduler that
// harvests sites when they are due, the discovery queue that works
// through the sites people asked to follow, and the batches of the
// command line (following or harvesting many sites at once). All of it
// goes through one Pool, so that two pieces of work on one host never
// run at once, whoever started them.
//
// The package is named for what a `tidings worker` process will run
// beside serve: the work that is not an answer to a request.
package worker

import (
	"context"
	"sync"

	"tidings/urls"
)

// DefaultWorkers is how many sites are harvested at once.
const DefaultWorkers = 4

// Pool holds the hosts being worked on, so that work on one host waits
// for the work under way there: the politeness rule the scheduler, the
// discovery queue and a batch share. The per-host delay (fetch.Client)
// spaces the requests within one harvest; the pool keeps two harvests of
// a host from interleaving theirs. Each user of a pool has a lane with
// its own number of workers, so that scheduled harvests do not hold up
// the discoveries people wait for, nor the other way round.
type Pool struct {
	mu    sync.Mutex
	hosts map[string]bool
	lanes []*lane
	// shared, when set, takes a host's lease in the database too, so
	// that the rule holds across processes (see NewSharedPool).
	shared *sharing
}

// NewPool returns an empty pool, for one process alone.
func NewPool() *Pool { return &Pool{hosts: map[string]bool{}} }

// lane is one user's share of a pool: its own workers, the hosts of the
// whole pool.
type lane struct {
	pool  *Pool
	sem   chan struct{}
	freed chan struct{} // signalled, without blocking, when any work of the pool ends
	wg    sync.WaitGroup
}

// lane adds a lane of workers to the pool (DefaultWorkers when not
// positive).
func (p *Pool) lane(workers int) *lane {
	if workers <= 0 {
		workers = DefaultWorkers
	}
	l := &lane{pool: p, sem: make(chan struct{}, workers), freed: make(chan struct{}, 1)}
	p.mu.Lock()
	p.lanes = append(p.lanes, l)
	p.mu.Unlock()
	return l
}

// newHostPool is a lane of a pool of its own.
func newHostPool(workers int) *lane { return NewPool().lane(workers) }

// startResult says what tryGo did.
type startResult int

const (
	started  startResult = iota
	hostBusy             // other work on the host is under way
	poolFull             // every worker of the lane is busy
)

// tryGo runs fn on a free worker of the lane unless the host is busy or
// no worker is free; it never waits. fn's context is ctx, ended early
// (with ErrLeaseLost) when another process takes the host.
//
// In a shared pool, the host's lease is taken once the host and a worker
// are reserved here, outside the pool's lock, and the reservation undone
// when another process holds the host.
func (l *lane) tryGo(ctx context.Context, host string, fn func(ctx context.Context)) startResult {
	p := l.pool
	p.mu.Lock()
	if p.hosts[host] {
		p.mu.Unlock()
		return hostBusy
	}
	select {
	case l.sem <- struct{}{}:
	default:
		p.mu.Unlock()
		return poolFull
	}
	p.hosts[host] = true
	l.wg.Add(1)
	p.mu.Unlock()
	if p.shared != nil && !p.shared.take(host) {
		p.mu.Lock()
		delete(p.hosts, host)
		p.mu.Unlock()
		<-l.sem
		l.wg.Done()
		p.retryLater()
		return hostBusy
	}
	go func() {
		defer l.wg.Done()
		defer l.end(host)
		wctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		if p.shared != nil {
			defer p.shared.release(host)
			stop := p.shared.keep(host, cancel)
			defer stop()
		}
		fn(wctx)
	}()
	return started
}

// end frees the host and the worker, and tells every lane: the host
// freed may be the one another lane's next piece of work waits for.
func (l *lane) end(host string) {
	p := l.pool
	p.mu.Lock()
	delete(p.hosts, host)
	p.mu.Unlock()
	<-l.sem
	p.wake()
}

// wake tells every lane that work may start.
func (p *Pool) wake() {
	p.mu.Lock()
	lanes := p.lanes
	p.mu.Unlock()
	for _, o := range lanes {
		select {
		case o.freed <- struct{}{}:
		default:
		}
	}
}

// running counts the work under way in the lane.
func (l *lane) running() int { return len(l.sem) }

// wait returns when all work the lane started has ended.
func (l *lane) wait() { l.wg.Wait() }

// each runs fn(i) for i in [0, n) on the lane, in order as far as workers
// and hosts allow: an item whose host is busy waits for it, the items
// after it go ahead. It returns when every item started has ended; once
// ctx ends, no further item starts.
func (l *lane) each(ctx context.Context, n int, host func(i int) string, fn func(ctx context.Context, i int)) {
	pending := make([]int, n)
	for i := range pending {
		pending[i] = i
	}
	for len(pending) > 0 && ctx.Err() == nil {
		rest := pending[:0]
		full := false
		for _, i := range pending {
			if !full {
				switch l.tryGo(ctx, host(i), func(ctx context.Context) { fn(ctx, i) }) {
				case started:
					continue
				case poolFull:
					full = true
				}
			}
			rest = append(rest, i)
		}
		pending = rest
		if len(pending) == 0 {
			break
		}
		select {
		case <-l.freed:
		case <-ctx.Done():
		}
	}
	l.wait()
}

// HostOf is the politeness key of a site: its host and port, as each
// port may be another server (urls.HostKey).
func HostOf(siteURL string) string { return urls.HostKey(siteURL) }
