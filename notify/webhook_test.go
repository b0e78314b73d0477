package notify_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/internal/demosite"
	"tidings/notify"
)

// hook is a generic webhook receiver on 127.0.0.1.
type hook struct {
	mu     sync.Mutex
	bodies []string
	sigs   []string
	// answer, when set, decides each request's status; it sees the
	// request's number, from 1.
	answer func(n int, body string) int
	// after, when set, runs once the request is recorded, before it is
	// answered.
	after func(n int)
	calls int
	srv   *httptest.Server
}

func startHook(t *testing.T) *hook {
	h := &hook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.calls++
		n, answer := h.calls, h.answer
		h.mu.Unlock()
		status := http.StatusNoContent
		if answer != nil {
			status = answer(n, string(body))
		}
		if status < 300 {
			h.mu.Lock()
			h.bodies = append(h.bodies, string(body))
			h.sigs = append(h.sigs, r.Header.Get(notify.SignatureHeader))
			h.mu.Unlock()
		}
		if h.after != nil {
			h.after(n)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// URL is the receiver's address in shoutrrr's syntax.
func (h *hook) URL() string { return "generic+" + h.srv.URL + "/hook" }

func (h *hook) received() ([]string, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.bodies...), append([]string(nil), h.sigs...)
}

func (h *hook) requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

type hookBody struct {
	Site       string `json:"site"`
	SitePage   string `json:"site_page"`
	Collection string `json:"collection"`
	Changes    []struct {
		URL, Title, Kind, Datetime, Summary string
	} `json:"changes"`
}

// TestWebhookSignedPerHarvest: a generic webhook gets one JSON document
// per harvest with changes, signed with the person's secret.
func TestWebhookSignedPerHarvest(t *testing.T) {
	e := newEnv(t)
	h := startHook(t)
	ann := e.person("ann", demosite.ResourceSync, demosite.Sitemap)
	if err := e.n.SetPushSecret(e.ctx, ann.ID, "s3cret"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.n.AddPush(e.ctx, ann.ID, h.URL(), 0); err != nil {
		t.Fatal(err)
	}
	e.change(demosite.ResourceSync)
	e.change(demosite.Sitemap)
	e.run(notify.RunOptions{})
	// A harvest that finds nothing sends nothing.
	site, _ := e.store.SiteByURL(e.ctx, e.sites.Of(demosite.Sitemap).URL+"/")
	if _, err := e.h.HarvestSite(e.ctx, site); err != nil {
		t.Fatal(err)
	}
	e.run(notify.RunOptions{})

	bodies, sigs := h.received()
	if len(bodies) != 2 {
		t.Fatalf("the webhook got %d documents, want one per harvest with changes (2):\n%s", len(bodies), strings.Join(bodies, "\n"))
	}
	for i, b := range bodies {
		mac := hmac.New(sha256.New, []byte("s3cret"))
		mac.Write([]byte(b))
		if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); sigs[i] != want {
			t.Errorf("signature %q, want %q", sigs[i], want)
		}
		var got hookBody
		if err := json.Unmarshal([]byte(b), &got); err != nil {
			t.Fatal(err)
		}
		if got.Site == "" || got.Collection == "" || !strings.HasPrefix(got.SitePage, "http://tidings.test/site/") || len(got.Changes) != 2 {
			t.Errorf("document %d: %s", i, b)
		}
		for _, c := range got.Changes {
			if !strings.HasPrefix(c.URL, got.Site) || c.Title == "" || c.Kind != "updated" || c.Datetime == "" || c.Summary == "" {
				t.Errorf("change %+v of %s", c, b)
			}
			// An edit says what it removed as well as what it added.
			if !strings.HasPrefix(c.Summary, "Removed: ") || !strings.Contains(c.Summary, " Added: ") {
				t.Errorf("summary %q, want the removed and the added text, labelled", c.Summary)
			}
		}
	}
}

// TestWebhookRetriedOnce: a receiver that fails twice, then succeeds,
// gets the document once; the attempts are spaced by the backoff.
func TestWebhookRetriedOnce(t *testing.T) {
	e := newEnv(t)
	h := startHook(t)
	h.answer = func(n int, _ string) int {
		if n <= 2 {
			return http.StatusBadGateway
		}
		return http.StatusOK
	}
	ann := e.person("ann", demosite.ResourceSync)
	if _, err := e.n.AddPush(e.ctx, ann.ID, h.URL(), 0); err != nil {
		t.Fatal(err)
	}
	e.change(demosite.ResourceSync)
	if rep := e.run(notify.RunOptions{}); rep.Retried != 1 {
		t.Fatalf("first run %+v, want one failed attempt", rep)
	}
	if rep := e.run(notify.RunOptions{}); rep.Sent+rep.Retried != 0 {
		t.Fatalf("a run before the backoff ended tried again: %+v", rep)
	}
	for _, d := range []time.Duration{time.Minute, 5 * time.Minute} {
		e.advance(d)
		e.run(notify.RunOptions{})
	}
	e.advance(time.Hour)
	e.run(notify.RunOptions{})
	bodies, _ := h.received()
	if len(bodies) != 1 || h.requests() != 3 {
		t.Fatalf("received %d documents in %d requests, want 1 in 3", len(bodies), h.requests())
	}
	out, _ := e.store.Outbox(e.ctx, ann.ID)
	if len(out) != 1 || out[0].SentAt == nil || out[0].Attempts != 3 {
		t.Errorf("outbox %+v, want one message sent at its third attempt", out)
	}
}

// TestWebhookGivesUpWithReason: a receiver that keeps failing gets a
// bounded number of attempts, and the person reads why.
func TestWebhookGivesUpWithReason(t *testing.T) {
	e := newEnv(t)
	h := startHook(t)
	h.answer = func(int, string) int { return http.StatusInternalServerError }
	ann := e.person("ann", demosite.ResourceSync)
	if _, err := e.n.AddPush(e.ctx, ann.ID, h.URL(), 0); err != nil {
		t.Fatal(err)
	}
	e.change(demosite.ResourceSync)
	for range 10 {
		e.run(notify.RunOptions{})
		e.advance(7 * time.Hour)
	}
	if n := h.requests(); n != 6 {
		t.Errorf("%d attempts, want 6", n)
	}
	v, err := e.n.Settings(e.ctx, ann.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Trouble) != 1 || v.Trouble[0].FailedAt == nil || !strings.Contains(v.Trouble[0].Error, "500") {
		t.Errorf("the settings show %+v, want the message given up with its reason", v.Trouble)
	}
}

// TestNotifyKilledMidSend: a run stopped while a message is in flight,
// then run again after the lease, sends every message once but that one,
// which it may send twice.
func TestNotifyKilledMidSend(t *testing.T) {
	e := newEnv(t)
	h := startHook(t)
	ann := e.person("ann", demosite.ResourceSync, demosite.Sitemap, demosite.Pages)
	if _, err := e.n.AddPush(e.ctx, ann.ID, h.URL(), 0); err != nil {
		t.Fatal(err)
	}
	e.change(demosite.ResourceSync)
	e.change(demosite.Sitemap)
	e.change(demosite.Pages)

	ctx, kill := context.WithCancel(e.ctx)
	defer kill()
	h.after = func(n int) {
		if n == 2 {
			// The second message arrives; the process dies before it
			// hears the answer, let alone records it.
			kill()
			time.Sleep(50 * time.Millisecond)
		}
	}
	if _, err := e.n.Run(ctx, notify.RunOptions{}); err == nil {
		t.Fatal("the killed run returned no error")
	}
	// Within the lease, a run leaves the message in flight alone.
	e.run(notify.RunOptions{})
	e.advance(3 * time.Minute)
	e.run(notify.RunOptions{})

	bodies, _ := h.received()
	count := map[string]int{}
	for _, b := range bodies {
		var got hookBody
		json.Unmarshal([]byte(b), &got)
		count[got.Site]++
	}
	if len(count) != 3 {
		t.Fatalf("received documents of %d sites, want 3: %v", len(count), count)
	}
	twice := 0
	for site, k := range count {
		if k > 2 || k < 1 {
			t.Errorf("%s: %d documents", site, k)
		}
		if k == 2 {
			twice++
		}
	}
	if twice != 1 {
		t.Errorf("%d documents sent twice, want only the one in flight: %v", twice, count)
	}
	out, _ := e.store.Outbox(e.ctx, ann.ID)
	for _, m := range out {
		if m.SentAt == nil {
			t.Errorf("message %d to %s was never recorded as sent", m.ID, m.Address)
		}
	}
}

// TestRateLimitPerTarget: past its hourly limit, a target's messages
// wait, and are sent once the hour has room again.
func TestRateLimitPerTarget(t *testing.T) {
	e := newEnv(t)
	h := startHook(t)
	n, err := notify.New(e.store, notify.Options{BaseURL: "http://tidings.test/", Client: e.client, Now: e.clock, PerTargetHour: 1})
	if err != nil {
		t.Fatal(err)
	}
	ann := e.person("ann", demosite.ResourceSync, demosite.Sitemap)
	if _, err := n.AddPush(e.ctx, ann.ID, h.URL(), 0); err != nil {
		t.Fatal(err)
	}
	e.change(demosite.ResourceSync)
	e.change(demosite.Sitemap)
	rep, err := n.Run(e.ctx, notify.RunOptions{})
	if err != nil || rep.Sent != 1 || rep.Waiting != 1 {
		t.Fatalf("Run = %+v, %v; want one sent and one held back", rep, err)
	}
	e.advance(30 * time.Minute)
	if rep, _ := n.Run(e.ctx, notify.RunOptions{}); rep.Sent != 0 {
		t.Errorf("sent within the hour: %+v", rep)
	}
	e.advance(40 * time.Minute)
	if rep, _ := n.Run(e.ctx, notify.RunOptions{}); rep.Sent != 1 {
		t.Errorf("not sent once the hour had room: %+v", rep)
	}
	if n := h.requests(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestPushForOneSite: a target kept to one site hears of that site's
// harvests alone.
func TestPushForOneSite(t *testing.T) {
	e := newEnv(t)
	h := startHook(t)
	ann := e.person("ann", demosite.ResourceSync, demosite.Sitemap)
	site, err := e.store.SiteByURL(e.ctx, e.sites.Of(demosite.Sitemap).URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.n.AddPush(e.ctx, ann.ID, h.URL(), site.ID); err != nil {
		t.Fatal(err)
	}
	e.change(demosite.ResourceSync)
	e.change(demosite.Sitemap)
	e.run(notify.RunOptions{})
	bodies, _ := h.received()
	if len(bodies) != 1 || !strings.Contains(bodies[0], `"site":"`+site.URL+`"`) {
		t.Errorf("the target for %s got %q", site.URL, bodies)
	}
}
