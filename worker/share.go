package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// HostLeases are the database's leases of hosts (db.DB has them).
type HostLeases interface {
	// TakeHost takes host's lease for holder, for ttl, unless another
	// holder has it, and reports whether holder has it.
	TakeHost(ctx context.Context, host, holder string, ttl time.Duration) (bool, error)
	// HoldHost keeps holder's lease of host for d from now, and reports
	// false when holder no longer has it.
	HoldHost(ctx context.Context, host, holder string, d time.Duration) (bool, error)
}

// Sharing tunes a pool shared with other processes through the database.
type Sharing struct {
	// Holder names this process in the leases; NewHolder's when empty.
	Holder string
	// TTL is how long a lease lasts unless renewed, which it is every
	// third of it while the work goes on: how long a host waits for
	// another process after a process holding it dies. 0 = LeaseTTL.
	TTL time.Duration
	// Delay says how long a host stays held after the work on it ends:
	// the least time between a process's last request there and
	// another's first (--host-delay, or more when the site asked). None
	// when nil.
	Delay func(host string) time.Duration
	// Retry is how soon work waiting for a host another process holds
	// is tried again; 0 = one second.
	Retry time.Duration
	// Logger hears of leases the database could not keep.
	Logger *slog.Logger
}

// LeaseTTL is how long a host's lease lasts unless renewed.
const LeaseTTL = time.Minute

// NewHolder returns a name for this process in leases and claims: its
// host name and process id, which an operator can read, and a random
// part, so that a restarted process with the same id is another holder.
func NewHolder() string {
	name, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s:%d:%s", name, os.Getpid(), hex.EncodeToString(b))
}

// NewSharedPool returns an empty pool whose hosts are also leased in the
// database, so that the rule that no two pieces of work run on one host
// at once holds across every process sharing it: a host held by another
// process is busy here until its lease ends.
func NewSharedPool(leases HostLeases, o Sharing) *Pool {
	if o.Holder == "" {
		o.Holder = NewHolder()
	}
	if o.TTL <= 0 {
		o.TTL = LeaseTTL
	}
	if o.Delay == nil {
		o.Delay = func(string) time.Duration { return 0 }
	}
	if o.Retry <= 0 {
		o.Retry = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	p := NewPool()
	p.shared = &sharing{leases: leases, o: o}
	return p
}

// Holder is the name this pool's process holds leases by, "" for a pool
// of one process alone.
func (p *Pool) Holder() string {
	if p.shared == nil {
		return ""
	}
	return p.shared.o.Holder
}

// sharing is a pool's side of the host leases.
type sharing struct {
	leases HostLeases
	o      Sharing

	mu    sync.Mutex
	retry *time.Timer // pending wake-up of the lanes, nil when none
}

// leaseCall bounds one statement on a lease: a database that does not
// answer within it counts as a host not taken, or a lease not kept.
const leaseCall = 10 * time.Second

// take takes host's lease; an error counts as another holding it.
func (s *sharing) take(host string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), leaseCall)
	defer cancel()
	ok, err := s.leases.TakeHost(ctx, host, s.o.Holder, s.o.TTL)
	if err != nil {
		s.o.Logger.Error("worker: take a host's lease", "host", host, "error", err)
		return false
	}
	return ok
}

// ErrLeaseLost ends the work on a host when another process took its
// lease: a renewal came too late (a process stalled past the lease's
// time), and that process may be at the host already. The work stops
// there, as at a shutdown: what it stored is kept, and the site is
// harvested by the process that holds the host.
var ErrLeaseLost = errors.New("worker: another process took the host's lease; the work on it stopped here")

// keep renews host's lease while the work on it goes on, until stop; if
// another process has taken it, it ends the work with lost.
func (s *sharing) keep(host string, lost context.CancelCauseFunc) (stop func()) {
	return Renew(context.Background(), s.o.TTL/3, func() (bool, error) { return s.hold(host, s.o.TTL) }, func() {
		s.o.Logger.Warn("worker: lost a host's lease while working on it; stopping that work", "host", host)
		lost(ErrLeaseLost)
	})
}

// Renew keeps a lease or a claim while the work under it goes on: it
// calls renew every interval until stop is called or ctx ends. When renew
// reports the lease another's (false, and no error), it calls lost and
// renews no more; a renewal that failed (the database did not answer) is
// tried again at the next tick, as the lease may still be this process's.
func Renew(ctx context.Context, every time.Duration, renew func() (bool, error), lost func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if held, err := renew(); err == nil && !held {
				lost()
				return
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// release keeps host held for its delay after the work, from any
// process but this one: this one's client spaces its own requests.
func (s *sharing) release(host string) {
	s.hold(host, s.o.Delay(host))
}

func (s *sharing) hold(host string, d time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), leaseCall)
	defer cancel()
	ok, err := s.leases.HoldHost(ctx, host, s.o.Holder, d)
	if err != nil {
		s.o.Logger.Error("worker: keep a host's lease", "host", host, "error", err)
	}
	return ok, err
}

// retryLater wakes the lanes after a while, once: work that found its
// host held by another process tries again then, as no end of work here
// will tell it the host is free.
func (p *Pool) retryLater() {
	s := p.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retry != nil {
		return
	}
	s.retry = time.AfterFunc(s.o.Retry, func() {
		s.mu.Lock()
		s.retry = nil
		s.mu.Unlock()
		p.wake()
	})
}
