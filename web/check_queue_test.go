package web

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// lineUp runs acquire for each of checks ("client/name") in the
// background, in that order, each once the one before is in the queue.
// Each check that gets its turn sends its name on the channel returned,
// and its release is kept under that name.
func lineUp(t *testing.T, q *checkQueue, ctx context.Context, checks ...string) (started chan string, releases *sync.Map, failed chan error) {
	t.Helper()
	started, releases, failed = make(chan string, len(checks)), new(sync.Map), make(chan error, len(checks))
	for _, ck := range checks {
		client := ck[:1]
		q.mu.Lock()
		before := q.nwait + q.nrun
		q.mu.Unlock()
		go func() {
			release, err := q.acquire(ctx, client)
			if err != nil {
				failed <- err
				return
			}
			releases.Store(ck, release)
			started <- ck
		}()
		waitUntil(t, func() bool {
			q.mu.Lock()
			defer q.mu.Unlock()
			return q.nwait+q.nrun > before
		})
	}
	return started, releases, failed
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("gave up waiting")
		}
	}
}

func release(t *testing.T, releases *sync.Map, name string) {
	t.Helper()
	r, ok := releases.LoadAndDelete(name)
	if !ok {
		t.Fatalf("%s holds no turn", name)
	}
	r.(func())()
}

// TestCheckQueueServesClientsInTurn: with one slot, a client that asked
// for four checks before the others gets one, then each other client its
// one, then its next, and so on; never two of one client at once.
func TestCheckQueueServesClientsInTurn(t *testing.T) {
	t.Parallel()
	q := newCheckQueue(1, time.Minute, 32)
	started, releases, _ := lineUp(t, q, t.Context(), "a1", "a2", "a3", "a4", "b1", "c1", "b2")
	var order []string
	for range 7 {
		select {
		case name := <-started:
			order = append(order, name)
			if len(started) > 0 {
				t.Fatalf("two checks run at once with one slot: %v and more", order)
			}
			release(t, releases, name)
		case <-time.After(5 * time.Second):
			t.Fatalf("no check got its turn after %v", order)
		}
	}
	if want := []string{"a1", "b1", "c1", "a2", "b2", "a3", "a4"}; !slices.Equal(order, want) {
		t.Errorf("turns %v, want %v", order, want)
	}
}

// TestCheckQueueRunsOnePerClient: a free slot does not go to a client
// whose check is running; it goes to the next client.
func TestCheckQueueRunsOnePerClient(t *testing.T) {
	t.Parallel()
	q := newCheckQueue(2, time.Minute, 32)
	started, releases, _ := lineUp(t, q, t.Context(), "a1", "a2", "b1")
	got := []string{<-started, <-started}
	if !slices.Equal(got, []string{"a1", "b1"}) {
		t.Fatalf("running %v, want a1 and b1", got)
	}
	select {
	case name := <-started:
		t.Fatalf("%s runs beside a1", name)
	case <-time.After(50 * time.Millisecond):
	}
	release(t, releases, "a1")
	if name := <-started; name != "a2" {
		t.Errorf("after a1, %s ran", name)
	}
	release(t, releases, "a2")
	release(t, releases, "b1")
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.nrun != 0 || q.nwait != 0 || len(q.turns) != 0 || len(q.running) != 0 || len(q.waiting) != 0 {
		t.Errorf("state left behind: nrun %d, nwait %d, turns %v, running %v, waiting %v", q.nrun, q.nwait, q.turns, q.running, q.waiting)
	}
}

// TestCheckQueueBoundsTheWait: a check waits at most the patience, says
// whether it waited behind its own client's check, only so many wait at
// all, and one whose asker has gone leaves the line.
func TestCheckQueueBoundsTheWait(t *testing.T) {
	t.Parallel()
	q := newCheckQueue(1, 100*time.Millisecond, 2)
	started, releases, _ := lineUp(t, q, t.Context(), "a1")
	<-started
	_, _, failed := lineUp(t, q, t.Context(), "b1", "a2")
	errs := []error{<-failed, <-failed}
	if !slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, errQueueTooLong) }) ||
		!slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, errOwnCheckRunning) }) {
		t.Errorf("waits ended with %v, want one too long and one behind its own check", errs)
	}

	q.patience = time.Minute
	ctx, cancel := context.WithCancel(t.Context())
	_, _, gone := lineUp(t, q, ctx, "c1", "d1")
	if _, err := q.acquire(t.Context(), "e"); !errors.Is(err, errQueueFull) {
		t.Errorf("a third check waiting: %v, want the queue full", err)
	}
	cancel()
	for range 2 {
		if err := <-gone; !errors.Is(err, context.Canceled) {
			t.Errorf("a check whose asker went: %v", err)
		}
	}
	release(t, releases, "a1")
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.nrun != 0 || q.nwait != 0 || len(q.turns) != 0 || len(q.waiting) != 0 {
		t.Errorf("state left behind: nrun %d, nwait %d, turns %v, waiting %v", q.nrun, q.nwait, q.turns, q.waiting)
	}
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":                 "192.0.2.7",
		"::ffff:192.0.2.7":          "192.0.2.7",
		"2001:db8:1:2::1":           "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff::9": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":           "2001:db8:1:3::/64",
		"fe80::1%eth0":              "fe80::/64",
		"not an address":            "not an address",
	} {
		if got := clientKey(in); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", in, got, want)
		}
	}
}
