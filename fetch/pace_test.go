package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// TestPacerSpacesRequestsPerHost drives the pacer with a fake clock: the
// first request to a slowed host goes at once, the next ones wait their
// slot, other hosts never wait, and a delay past the cap is capped.
func TestPacerSpacesRequestsPerHost(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var slept []time.Duration
	c := NewClient(ClientOptions{Now: func() time.Time { return now }, Sleep: func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		now = now.Add(d)
		return nil
	}})
	c.SetHostDelay("Example.org", 2*time.Second)
	for range 3 {
		if err := c.pace.wait(context.Background(), "example.org"); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.pace.wait(context.Background(), "other.example"); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 2 || slept[0] != 2*time.Second || slept[1] != 2*time.Second {
		t.Errorf("slept %v, want [2s 2s]: the first request goes at once", slept)
	}
	now = now.Add(10 * time.Second)
	slept = nil
	c.pace.wait(context.Background(), "example.org")
	if len(slept) != 0 {
		t.Errorf("after a long pause a request waited %v", slept)
	}
	c.SetHostDelay("example.org", time.Hour)
	if d := c.HostDelay("EXAMPLE.ORG"); d != MaxHostDelay {
		t.Errorf("delay = %v, want the cap %v", d, MaxHostDelay)
	}
	c.SetHostDelay("example.org", 0)
	if d := c.HostDelay("example.org"); d != 0 {
		t.Errorf("delay after removal = %v", d)
	}
}

// TestPacerSpacingOnTheWire measures, on the server, the spacing of
// concurrent requests to a slowed host. Only lower bounds are asserted: a
// slow machine can make gaps longer, never shorter.
func TestPacerSpacingOnTheWire(t *testing.T) {
	var mu sync.Mutex
	var at []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{AllowPrivate: true})
	u, _ := url.Parse(srv.URL)
	const delay = 40 * time.Millisecond
	c.SetHostDelay(u.Host, delay)
	start := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := c.Get(context.Background(), srv.URL+"/", Conditional{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if elapsed := time.Since(start); elapsed < 3*delay {
		t.Errorf("4 requests took %v, want at least %v", elapsed, 3*delay)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(at) != 4 {
		t.Fatalf("server saw %d requests", len(at))
	}
	// Arrival also depends on connection set-up, so the server-side bound
	// is looser than the client-side one.
	if span := at[3].Sub(at[0]); span < delay {
		t.Errorf("first to last request arrived %v apart, want at least %v", span, delay)
	}
}

func TestPacerStopsWithTheContext(t *testing.T) {
	c := NewClient(ClientOptions{})
	c.SetHostDelay("example.org", MaxHostDelay)
	c.pace.wait(context.Background(), "example.org")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.pace.wait(ctx, "example.org"); err == nil {
		t.Error("a cancelled wait returned no error")
	}
}

// TestPacerCountsFromTheRequestWritten: a request written later than its
// slot (here 700 ms late) moves the next one to the delay after it was
// written, so that the site never sees two closer than the delay.
func TestPacerCountsFromTheRequestWritten(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var slept []time.Duration
	c := NewClient(ClientOptions{Now: func() time.Time { return now }, Sleep: func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		now = now.Add(d)
		return nil
	}})
	c.SetHostDelay("example.org", 2*time.Second)
	if err := c.pace.wait(context.Background(), "example.org"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(700 * time.Millisecond)
	c.pace.sent("example.org")
	if err := c.pace.wait(context.Background(), "example.org"); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 1 || slept[0] != 2*time.Second {
		t.Errorf("slept %v, want [2s]: the delay after the request was written, not after its slot", slept)
	}
}
