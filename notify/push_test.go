package notify_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/fetch"
	"tidings/internal/demosite"
	"tidings/notify"
)

// TestPushThroughShoutrrr: an ntfy server on loopback gets, through
// shoutrrr, the site's name, the changed pages' titles and a link.
func TestPushThroughShoutrrr(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var titles, bodies []string
	ntfy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		titles, bodies = append(titles, r.Header.Get("Title")), append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","event":"message","topic":"tidings"}`)
	}))
	t.Cleanup(ntfy.Close)
	ann := e.person("ann", demosite.ResourceSync)
	target := "ntfy://" + strings.TrimPrefix(ntfy.URL, "http://") + "/tidings?scheme=http"
	if _, err := e.n.AddPush(e.ctx, ann.ID, target, 0); err != nil {
		t.Fatal(err)
	}
	e.change(demosite.ResourceSync)
	if rep := e.run(notify.RunOptions{}); rep.Sent != 1 {
		t.Fatalf("Run = %+v, want one push sent", rep)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 || titles[0] != "Lantern Garden: 2 pages changed" {
		t.Fatalf("ntfy got titles %q", titles)
	}
	for _, want := range []string{"- Lantern Garden (edit 1) (updated)\n  Removed: ", " Added: ", "http://tidings.test/site/"} {
		if !strings.Contains(bodies[0], want) {
			t.Errorf("ntfy got:\n%s\nwant %q", bodies[0], want)
		}
	}
}

// TestPushAddressPolicy: without the operator's leave, a push or a
// webhook to loopback is refused when it is added, and a message already
// queued for one is given up, never connected to.
func TestPushAddressPolicy(t *testing.T) {
	e := newEnv(t)
	h := startHook(t)
	var mu sync.Mutex
	var dialed []string
	strict := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", DialHook: func(_, addr string) {
		mu.Lock()
		dialed = append(dialed, addr)
		mu.Unlock()
	}})
	n, err := notify.New(e.store, notify.Options{BaseURL: "http://tidings.test/", Client: strict, Now: e.clock})
	if err != nil {
		t.Fatal(err)
	}
	ann := e.person("ann", demosite.ResourceSync)
	ntfyURL := "ntfy://" + strings.TrimPrefix(h.srv.URL, "http://") + "/topic?scheme=http"
	for _, u := range []string{h.URL(), ntfyURL} {
		if _, err := n.AddPush(e.ctx, ann.ID, u, 0); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("AddPush(%s) = %v, want a refusal of a loopback address", u, err)
		}
	}
	// Added while loopback was allowed, sent by a notifier that refuses it.
	for _, u := range []string{h.URL(), ntfyURL} {
		if _, err := e.n.AddPush(e.ctx, ann.ID, u, 0); err != nil {
			t.Fatal(err)
		}
	}
	e.change(demosite.ResourceSync)
	rep, err := n.Run(e.ctx, notify.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The refusal is this process's: the messages wait a day for one
	// that may send them, then are given up.
	if rep.Waiting != 2 || rep.Failed != 0 || rep.Sent != 0 {
		t.Errorf("Run = %+v, want both messages held for a process that may send them", rep)
	}
	e.advance(25 * time.Hour)
	if rep, err = n.Run(e.ctx, notify.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 2 || rep.Sent != 0 {
		t.Errorf("Run a day later = %+v, want both messages given up", rep)
	}
	if got := h.requests(); got != 0 {
		t.Errorf("the receiver got %d requests", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) > 2 {
		// The webhook's dial is seen and refused by the policy, once a
		// run; shoutrrr's host is judged before any connection.
		t.Errorf("connections attempted: %q", dialed)
	}
	v, _ := n.Settings(e.ctx, ann.ID)
	if len(v.Trouble) != 2 {
		t.Errorf("the person reads of %d messages in trouble, want 2", len(v.Trouble))
	}
	for _, m := range v.Trouble {
		if !strings.Contains(m.Error, "loopback") || !strings.Contains(m.Error, "give an address on the public internet") || strings.Contains(m.Error, "--allow") {
			t.Errorf("the person reads %q, want the address refused and what they can do, no operator's flag", m.Error)
		}
	}
}
