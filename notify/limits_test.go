package notify_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/internal/demosite"
	"tidings/notify"
)

// TestPushTargetsBounded: a person adds push targets up to the bound;
// one more is refused, saying what to do, and is not stored.
func TestPushTargetsBounded(t *testing.T) {
	e := newEnv(t)
	ann := e.person("ann", demosite.ResourceSync)
	for i := range notify.DefaultMaxTargets {
		if _, err := e.n.AddPush(e.ctx, ann.ID, fmt.Sprintf("generic+http://127.0.0.1:9/hook%d", i), 0); err != nil {
			t.Fatalf("target %d: %v", i+1, err)
		}
	}
	_, err := e.n.AddPush(e.ctx, ann.ID, "generic+http://127.0.0.1:9/one-more", 0)
	if !errors.Is(err, notify.ErrTooManyPushes) || !strings.Contains(err.Error(), fmt.Sprintf("(%d): remove one to add another", notify.DefaultMaxTargets)) {
		t.Errorf("target %d: %v, want it refused with the bound", notify.DefaultMaxTargets+1, err)
	}
	got, err := e.store.PushTargets(e.ctx, ann.ID)
	if err != nil || len(got) != notify.DefaultMaxTargets {
		t.Errorf("%d targets stored (%v), want %d", len(got), err, notify.DefaultMaxTargets)
	}
	if _, err := e.n.RemovePush(e.ctx, ann.ID, got[0].ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.n.AddPush(e.ctx, ann.ID, "generic+http://127.0.0.1:9/one-more", 0); err != nil {
		t.Errorf("a target once one was removed: %v", err)
	}
}

// failing is a receiver on loopback that answers 500 and notes, by the
// notifier's clock, when each request came.
type failing struct {
	mu  sync.Mutex
	at  []time.Time
	srv *httptest.Server
}

func startFailing(t *testing.T, clock func() time.Time) *failing {
	f := &failing{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.at = append(f.at, clock())
		f.mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *failing) hits() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.at...)
}

// busiestHour is the most requests among hits in any hour.
func busiestHour(hits []time.Time) int {
	most := 0
	for _, start := range hits {
		k := 0
		for _, h := range hits {
			if !h.Before(start) && h.Before(start.Add(time.Hour)) {
				k++
			}
		}
		most = max(most, k)
	}
	return most
}

// TestAttemptsCountTowardTheHour: failed attempts and their retries
// count toward the hourly limits as messages sent do: a person whose
// targets keep failing gets no more connections an hour than the
// limits allow, per target and in all, over hours of retries.
func TestAttemptsCountTowardTheHour(t *testing.T) {
	e := newEnv(t)
	const perTarget, perPerson = 3, 5
	n, err := notify.New(e.store, notify.Options{BaseURL: "http://tidings.test/", Client: e.client, Now: e.clock,
		PerTargetHour: perTarget, PerPersonHour: perPerson, SendTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ann := e.person("ann", demosite.ResourceSync)
	a, b := startFailing(t, e.clock), startFailing(t, e.clock)
	body, _ := json.Marshal(map[string]string{"title": "t", "text": "x", "json": "{}"})
	for _, f := range []*failing{a, b} {
		tg, err := n.AddPush(e.ctx, ann.ID, "generic+"+f.srv.URL+"/hook", 0)
		if err != nil {
			t.Fatal(err)
		}
		// One harvest's worth of messages, and more.
		var msgs []db.OutboxMessage
		for range 8 {
			msgs = append(msgs, db.OutboxMessage{UserID: ann.ID, TargetID: tg.ID, Kind: db.OutboxWebhook, Address: tg.URL, Message: string(body)})
		}
		if err := e.store.Enqueue(e.ctx, e.clock(), msgs...); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := n.Run(e.ctx, notify.RunOptions{})
	if err != nil || rep.Retried != perPerson {
		t.Fatalf("first run: %+v, %v; want %d attempts, the person's hour", rep, err, perPerson)
	}
	for range 4 * 60 {
		e.advance(time.Minute)
		if _, err := n.Run(e.ctx, notify.RunOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ha, hb := a.hits(), b.hits()
	all := append(append([]time.Time(nil), ha...), hb...)
	if k := busiestHour(all); k != perPerson {
		t.Errorf("the busiest hour had %d requests in all, want %d", k, perPerson)
	}
	for name, h := range map[string][]time.Time{"a": ha, "b": hb} {
		if k := busiestHour(h); k > perTarget {
			t.Errorf("target %s: the busiest hour had %d requests, want at most %d", name, k, perTarget)
		}
	}
	if len(all) < 3*perPerson {
		t.Errorf("%d requests in four hours: the limits held back more than an hour's worth", len(all))
	}
}
