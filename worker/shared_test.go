package worker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/pgtest"
)

// fleetSite is a one-collection ResourceSync site on a loopback port of
// its own, each request answered slowly and its times recorded, so that
// a test sees which requests to the host came too close.
type fleetSite struct {
	srv   *httptest.Server
	delay time.Duration

	mu      sync.Mutex
	changes []string // the change list's entries
	times   [][2]time.Time
}

func newFleetSite(t *testing.T, delay time.Duration) *fleetSite {
	s := &fleetSite{delay: delay}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

const fleetHead = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`

func (s *fleetSite) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	defer func() {
		s.mu.Lock()
		s.times = append(s.times, [2]time.Time{start, time.Now()})
		s.mu.Unlock()
	}()
	select {
	case <-time.After(s.delay):
	case <-r.Context().Done():
		return
	}
	base := s.srv.URL
	var body string
	switch r.URL.Path {
	case "/.well-known/resourcesync":
		body = fleetHead + `<rs:md capability="description"/>
<url><loc>` + base + `/cap.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="` + base + `/"/></url>
</urlset>`
	case "/cap.xml":
		body = fleetHead + `<rs:ln rel="up" href="` + base + `/.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>` + base + `/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`
	case "/changes.xml":
		s.mu.Lock()
		body = fleetHead + `<rs:md capability="changelist"/>` + strings.Join(s.changes, "\n") + "</urlset>"
		s.mu.Unlock()
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Write([]byte(body))
}

// change adds an update of page to the change list, at at.
func (s *fleetSite) change(page string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes = append(s.changes, fmt.Sprintf(`<url><loc>%s/%s</loc><rs:md change="updated" datetime="%s"/></url>`,
		s.srv.URL, page, at.UTC().Format(time.RFC3339)))
}

// closest returns the shortest time between the start of a request and
// the start of the next, and how many requests overlapped another.
func (s *fleetSite) closest() (gap time.Duration, overlaps, requests int) {
	s.mu.Lock()
	times := slices.Clone(s.times)
	s.mu.Unlock()
	slices.SortFunc(times, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	gap = time.Hour
	for i := 1; i < len(times); i++ {
		gap = min(gap, times[i][0].Sub(times[i-1][0]))
		if times[i][0].Before(times[i-1][1]) {
			overlaps++
		}
	}
	return gap, overlaps, len(times)
}

func (s *fleetSite) forget() {
	s.mu.Lock()
	s.times = nil
	s.mu.Unlock()
}

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
	fleet := make([]*fleetSite, sites)
	start := time.Now()
	var follows sync.WaitGroup
	for i := range fleet {
		fleet[i] = newFleetSite(t, 30*time.Millisecond)
		fleet[i].change("first.html", start.Add(-time.Hour))
		follows.Go(func() {
			if _, err := h.Follow(ctx, fleet[i].srv.URL+"/"); err != nil {
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
			f.change(fmt.Sprintf("new%d.html", j), start.Add(-time.Duration(j+1)*time.Minute))
		}
		f.forget()
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
			if u := fmt.Sprintf("%s/new%d.html", f.srv.URL, j); found[u] != 1 {
				t.Errorf("%s stored %d times; want once", u, found[u])
			}
		}
		if ws := harvested[f.srv.URL+"/"]; len(ws) != 1 {
			t.Errorf("%s harvested by workers %v; want one", f.srv.URL, ws)
		}
		gap, overlaps, n := f.closest()
		// Times are the server's: a request may arrive a little late
		// or early against the client's pacing.
		if overlaps > 0 || n > 1 && gap < hostDelay-15*time.Millisecond {
			t.Errorf("%s: %d requests, %d overlapping, closest %s apart; want none under %s", f.srv.URL, n, overlaps, gap, hostDelay)
		}
	}
	t.Logf("harvested by: %v; took %s", harvested, time.Since(begun).Round(time.Millisecond))
}
