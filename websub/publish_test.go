package websub

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/fetch"
)

// testHub is a WebSub hub on loopback that records publish pings and
// answers each with the next status of its script (then 204).
type testHub struct {
	*httptest.Server
	mu      sync.Mutex
	pings   []string
	agents  []string
	script  []int
	invalid int
}

func newTestHub(t *testing.T, script ...int) *testHub {
	t.Helper()
	h := &testHub{script: script}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" ||
			r.ParseForm() != nil || r.PostForm.Get("hub.mode") != "publish" || len(r.PostForm["hub.url"]) != 1 {
			h.invalid++
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		h.pings = append(h.pings, r.PostForm.Get("hub.url"))
		h.agents = append(h.agents, r.UserAgent())
		code := http.StatusNoContent
		if len(h.script) > 0 {
			code, h.script = h.script[0], h.script[1:]
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *testHub) received() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.pings)
}

func noWait(int) time.Duration { return 0 }

func TestPublishPingsEachTopicOnce(t *testing.T) {
	hub := newTestHub(t)
	c := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-test"})
	p := NewPublisher(c, hub.URL+"/hub", PublisherOptions{Backoff: noWait})
	topics := []string{"https://tidings.example/feeds/1.atom", "https://tidings.example/feeds/1.rss?entries=page"}
	if err := p.Publish(t.Context(), topics); err != nil {
		t.Fatal(err)
	}
	if got := hub.received(); !slices.Equal(got, topics) {
		t.Errorf("hub received %q, want %q", got, topics)
	}
	if hub.invalid != 0 || hub.agents[0] != "tidings-test" {
		t.Errorf("%d malformed pings; user agent %q", hub.invalid, hub.agents[0])
	}
}

func TestPublishRetries(t *testing.T) {
	tests := []struct {
		name   string
		script []int
		pings  int
		fails  bool
	}{
		{"5xx then accepted", []int{503, 500, 202}, 3, false},
		{"too many requests", []int{429, 204}, 2, false},
		{"gives up", []int{500, 500, 500, 500, 500}, 4, true},
		{"4xx is final", []int{404}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub := newTestHub(t, tt.script...)
			var waits []int
			p := NewPublisher(fetch.NewClient(fetch.ClientOptions{AllowPrivate: true}), hub.URL, PublisherOptions{
				Backoff: func(n int) time.Duration { waits = append(waits, n); return time.Millisecond },
			})
			err := p.Publish(t.Context(), []string{"https://tidings.example/feeds/1.atom"})
			if (err != nil) != tt.fails {
				t.Errorf("err = %v, want failure %v", err, tt.fails)
			}
			if got := len(hub.received()); got != tt.pings {
				t.Errorf("%d pings, want %d", got, tt.pings)
			}
			if len(waits) != tt.pings-1 {
				t.Errorf("waited %v between %d pings", waits, tt.pings)
			}
		})
	}
}

func TestPublishStopsWithTheContext(t *testing.T) {
	hub := newTestHub(t, 500, 500, 500)
	ctx, cancel := context.WithCancel(t.Context())
	p := NewPublisher(fetch.NewClient(fetch.ClientOptions{AllowPrivate: true}), hub.URL, PublisherOptions{
		Backoff: func(int) time.Duration { cancel(); return time.Hour },
	})
	done := make(chan error, 1)
	go func() { done <- p.Publish(ctx, []string{"https://tidings.example/feeds/1.atom"}) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Publish did not stop when its context ended")
	}
}

// TestPublishHubOnLoopbackRefused: the hub is held to the address policy,
// checked before connecting, and a refusal is not retried.
func TestPublishHubOnLoopbackRefused(t *testing.T) {
	hub := newTestHub(t)
	var dials atomic.Int32
	c := fetch.NewClient(fetch.ClientOptions{DialHook: func(string, string) { dials.Add(1) }})
	p := NewPublisher(c, hub.URL, PublisherOptions{Backoff: noWait})
	err := p.Publish(t.Context(), []string{"https://tidings.example/feeds/1.atom"})
	var ae *fetch.AddressError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want an fetch.AddressError", err)
	}
	if len(hub.received()) != 0 || dials.Load() != 1 {
		t.Errorf("hub received %d pings after %d dial attempts; want none after one refused attempt", len(hub.received()), dials.Load())
	}
}
