package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fleetsite"
	"tidings/internal/pgtest"
)

// dyingLeases passes leases to the database until killed; then every
// call fails, as the leases of a process that died: none is renewed or
// released, and each expires.
type dyingLeases struct {
	HostLeases
	dead  atomic.Bool
	taken chan struct{} // closed at the first lease taken
	once  sync.Once
}

func (l *dyingLeases) TakeHost(ctx context.Context, host, holder string, ttl time.Duration) (bool, error) {
	if l.dead.Load() {
		return false, errors.New("dead")
	}
	ok, err := l.HostLeases.TakeHost(ctx, host, holder, ttl)
	if ok {
		l.once.Do(func() { close(l.taken) })
	}
	return ok, err
}

func (l *dyingLeases) HoldHost(ctx context.Context, host, holder string, d time.Duration) (bool, error) {
	if l.dead.Load() {
		return false, errors.New("dead")
	}
	return l.HostLeases.HoldHost(ctx, host, holder, d)
}

// TestWorkersShareOneDatabase: three worker processes (each its own
// store, client, pool and scheduler) harvest a fleet of sites on one
// PostgreSQL database; one dies mid-harvest. Every change is found once,
// every site is harvested by one process, and no host hears two requests
// closer than the host delay, the dead process's included.
func TestWorkersShareOneDatabase(t *testing.T) {
	target := pgtest.NewDatabase(t)
	const (
		sites     = 12
		changes   = 3
		hostDelay = 150 * time.Millisecond
		ttl       = 2 * time.Second
	)
	ctx := t.Context()
	setup, err := db.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	newHarvester := func(store *db.DB) *harvest.Harvester {
		client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true, MinHostDelay: hostDelay})
		o := harvest.Options{}
		o.Snapshots.Off = true
		return harvest.New(client, store, o)
	}
	h := newHarvester(setup)
	fleet := make([]*fleetsite.Site, sites)
	start := time.Now()
	var follows sync.WaitGroup
	for i := range fleet {
		fleet[i] = fleetsite.New(t, 30*time.Millisecond)
		fleet[i].Change("first.html", start.Add(-time.Hour))
		follows.Go(func() {
			if _, err := h.Follow(ctx, fleet[i].URL+"/"); err != nil {
				t.Error(err)
			}
		})
	}
	follows.Wait()
	if t.Failed() {
		return
	}
	stored, _ := setup.Sites(ctx)
	for _, s := range stored {
		if err := setup.SetNextHarvest(ctx, s.ID, start); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range fleet {
		for j := range changes {
			f.Change(fmt.Sprintf("new%d.html", j), start.Add(-time.Duration(j+1)*time.Minute))
		}
		f.Forget()
	}

	begun := time.Now()
	var mu sync.Mutex
	harvested := map[string][]int{} // site -> the workers that harvested it
	type proc struct {
		cancel context.CancelFunc
		leases *dyingLeases
		done   chan struct{}
	}
	procs := make([]proc, 3)
	for i := range procs {
		store, err := db.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		leases := &dyingLeases{HostLeases: store, taken: make(chan struct{})}
		pool := NewSharedPool(leases, Sharing{
			TTL: ttl, Retry: 50 * time.Millisecond, Delay: func(string) time.Duration { return hostDelay },
		})
		sched := NewScheduler(store, newHarvester(store), SchedulerOptions{
			Workers: 2, Pool: pool,
			Report: func(rep *harvest.SiteReport, err error) {
				if err != nil {
					t.Errorf("worker %d: %v", i, err)
				}
				if rep != nil {
					mu.Lock()
					harvested[rep.Site.URL] = append(harvested[rep.Site.URL], i)
					mu.Unlock()
				}
			},
		})
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); sched.Run(wctx) }()
		procs[i] = proc{cancel, leases, done}
	}
	// Worker 0 dies in the middle of its first harvest: its leases stay
	// as they were, to expire.
	select {
	case <-procs[0].leases.taken:
	case <-time.After(10 * time.Second):
		t.Fatal("worker 0 took no host")
	}
	time.Sleep(40 * time.Millisecond)
	procs[0].leases.dead.Store(true)
	procs[0].cancel()
	<-procs[0].done

	deadline := time.Now().Add(30 * time.Second)
	for {
		due, err := setup.DueSites(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sites still due", len(due))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range procs[1:] {
		p.cancel()
		<-p.done
	}

	found := map[string]int{}
	err = setup.ExportChanges(ctx, db.ExportFilter{}, func(c db.ExportedChange) error {
		found[c.URL]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fleet {
		for j := range changes {
			if u := fmt.Sprintf("%s/new%d.html", f.URL, j); found[u] != 1 {
				t.Errorf("%s stored %d times; want once", u, found[u])
			}
		}
		if ws := harvested[f.URL+"/"]; len(ws) != 1 {
			t.Errorf("%s harvested by workers %v; want one", f.URL, ws)
		}
		gap, overlaps, n := f.Closest()
		// Times are the server's: a request may arrive a little late
		// or early against the client's pacing.
		if overlaps > 0 || n > 1 && gap < hostDelay-15*time.Millisecond {
			t.Errorf("%s: %d requests, %d overlapping, closest %s apart; want none under %s", f.URL, n, overlaps, gap, hostDelay)
		}
	}
	t.Logf("harvested by: %v; took %s", harvested, time.Since(begun).Round(time.Millisecond))
}

// scriptedLeases grants every lease and answers each renewal as told,
// counting them.
type scriptedLeases struct {
	renew   func() (bool, error)
	renewed chan struct{}
}

func (l *scriptedLeases) TakeHost(context.Context, string, string, time.Duration) (bool, error) {
	return true, nil
}

func (l *scriptedLeases) HoldHost(_ context.Context, _, _ string, d time.Duration) (bool, error) {
	if d == 0 {
		return true, nil // the release, with no delay
	}
	select {
	case l.renewed <- struct{}{}:
	default:
	}
	return l.renew()
}

// TestALostLeaseStopsTheWork: when another process has taken the host's
// lease (a renewal came too late), the work on the host here is stopped,
// so that two processes never work on one host at once; a renewal the
// database did not answer stops nothing.
func TestALostLeaseStopsTheWork(t *testing.T) {
	for _, c := range []struct {
		name  string
		held  bool
		err   error
		stops bool
	}{
		{"another process took it", false, nil, true},
		{"the database did not answer", false, errors.New("connection reset"), false},
		{"renewed", true, nil, false},
	} {
		leases := &scriptedLeases{renew: func() (bool, error) { return c.held, c.err }, renewed: make(chan struct{})}
		p := NewSharedPool(leases, Sharing{TTL: 30 * time.Millisecond})
		l := p.lane(1)
		ended := make(chan error, 1)
		if l.tryGo(context.Background(), "a.example", func(ctx context.Context) {
			for range 3 {
				select {
				case <-leases.renewed:
				case <-ctx.Done():
					ended <- context.Cause(ctx)
					return
				}
			}
			ended <- ctx.Err()
		}) != started {
			t.Fatalf("%s: the work did not start", c.name)
		}
		var err error
		select {
		case err = <-ended:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the work neither stopped nor saw three renewals", c.name)
		}
		l.wait()
		switch {
		case c.stops && !errors.Is(err, ErrLeaseLost):
			t.Errorf("%s: the work ended with %v, want ErrLeaseLost", c.name, err)
		case !c.stops && err != nil:
			t.Errorf("%s: the work was stopped (%v)", c.name, err)
		}
	}
}
