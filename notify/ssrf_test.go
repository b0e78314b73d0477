package notify_test

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/fetch"
	"tidings/internal/demosite"
	"tidings/notify"
)

// dialLog records the connections a client attempts.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialLog) hook(_, addr string) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
}

func (d *dialLog) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// connCounter is a TLS server on loopback that counts the connections
// made to it, whatever comes of them.
func connCounter(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	// Its certificate is its own: the handshakes fail, as they should.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &n
}

// loopbackPushes are URLs of services whose URL names a host, each
// naming host, and matrix's, which tidings does not offer.
func loopbackPushes(host string) []string {
	return []string{
		"googlechat://" + host + "/v1/spaces/A/messages?key=k&token=t",
		"hangouts://" + host + "/v1/spaces/A/messages?key=k&token=t",
		"opsgenie://" + host + "/apikey",
		"matrix://u:p@" + host + "/?disableTLS=yes",
		"gotify://" + host + "/Aaa.bbb.ccc.ddd?disabletls=yes",
		"ntfy://" + host + "/topic?scheme=http",
		"rocketchat://" + host + "/tokenA/tokenB/general",
		"pagerduty://" + host + "/0123456789abcdef0123456789abcdef",
	}
}

// TestPushServicesRefuseLoopback: under the default policy, push URLs
// naming a loopback host are refused when a person gives them, and
// messages already queued for them are given up, and at no time is a
// connection attempted, to that host or any other.
func TestPushServicesRefuseLoopback(t *testing.T) {
	e := newEnv(t)
	srv, conns := connCounter(t)
	host := strings.TrimPrefix(srv.URL, "https://")
	var d dialLog
	strict := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", DialHook: d.hook})
	n, err := notify.New(e.store, notify.Options{BaseURL: "http://tidings.test/", Client: strict, Now: e.clock})
	if err != nil {
		t.Fatal(err)
	}
	ann := e.person("ann", demosite.ResourceSync)
	for _, u := range loopbackPushes(host) {
		_, err := n.AddPush(e.ctx, ann.ID, u, 0)
		if err == nil || !(strings.Contains(err.Error(), "127.0.0.1 is a loopback address") || strings.Contains(err.Error(), "does not send to matrix://")) {
			t.Errorf("AddPush(%s) = %v, want a refusal", u, err)
		}
		if err != nil && strings.Contains(err.Error(), "k&token=t") {
			t.Errorf("the refusal shows the key: %v", err)
		}
		// Stored as a tidings that allowed loopback, or an older one, did.
		if _, err := e.store.AddPushTarget(e.ctx, ann.ID, u, 0, e.clock()); err != nil {
			t.Fatal(err)
		}
	}
	e.change(demosite.ResourceSync)
	rep, err := n.Run(e.ctx, notify.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Matrix is given up at once (not offered); the others wait a day
	// for a process whose policy allows loopback, then are given up.
	if want := len(loopbackPushes(host)); rep.Failed != 1 || rep.Waiting != want-1 || rep.Sent+rep.Retried != 0 {
		t.Errorf("Run = %+v, want matrix given up and %d messages held", rep, want-1)
	}
	e.advance(25 * time.Hour)
	if rep, err = n.Run(e.ctx, notify.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := len(loopbackPushes(host)) - 1; rep.Failed != want || rep.Sent+rep.Retried != 0 {
		t.Errorf("Run a day later = %+v, want the %d held messages given up", rep, want)
	}
	time.Sleep(50 * time.Millisecond)
	if got := d.list(); len(got) != 0 {
		t.Errorf("connections attempted: %q", got)
	}
	if k := conns.Load(); k != 0 {
		t.Errorf("the loopback server got %d connections", k)
	}
	v, err := n.Settings(e.ctx, ann.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range v.Trouble {
		if !strings.Contains(m.Error, "loopback") && !strings.Contains(m.Error, "does not send to matrix://") {
			t.Errorf("the person reads %q for %s", m.Error, m.Address)
		}
	}
}

// TestPushThroughTidingsClient: where the operator allows loopback (the
// test does), Google Chat's and OpsGenie's messages go through tidings'
// client, which dials the host their URL names, and nowhere else.
func TestPushThroughTidingsClient(t *testing.T) {
	e := newEnv(t)
	srv, conns := connCounter(t)
	host := strings.TrimPrefix(srv.URL, "https://")
	var d dialLog
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true, DialHook: d.hook})
	n, err := notify.New(e.store, notify.Options{BaseURL: "http://tidings.test/", Client: client, Now: e.clock, SendTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ann := e.person("ann", demosite.ResourceSync)
	for _, u := range loopbackPushes(host)[:3] {
		if _, err := n.AddPush(e.ctx, ann.ID, u, 0); err != nil {
			t.Fatalf("AddPush(%s): %v", u, err)
		}
	}
	e.change(demosite.ResourceSync)
	// The test server's certificate is its own: the connection is made,
	// the message is not delivered, and is tried again later.
	rep, err := n.Run(e.ctx, notify.RunOptions{})
	if err != nil || rep.Retried != 3 {
		t.Fatalf("Run = %+v, %v; want 3 attempts to try again", rep, err)
	}
	got := d.list()
	if len(got) != 3 {
		t.Errorf("dialled %q, want %s three times", got, host)
	}
	for _, a := range got {
		if a != host {
			t.Errorf("dialled %s, want only %s", a, host)
		}
	}
	if k := conns.Load(); k != 3 {
		t.Errorf("the server got %d connections, want 3", k)
	}
}

// TestPushUnresolvedHostRetried: a host whose name does not resolve is
// refused when given, but a message queued for it is tried again later,
// as a webhook's is: names come and go, the address policy does not.
func TestPushUnresolvedHostRetried(t *testing.T) {
	e := newEnv(t)
	var d dialLog
	n, err := notify.New(e.store, notify.Options{BaseURL: "http://tidings.test/", Now: e.clock,
		Client: fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", DialHook: d.hook})})
	if err != nil {
		t.Fatal(err)
	}
	ann := e.person("ann", demosite.ResourceSync)
	u := "gotify://push.invalid/Aaa.bbb.ccc.ddd"
	if _, err := n.AddPush(e.ctx, ann.ID, u, 0); err == nil || !strings.Contains(err.Error(), "no such host") {
		t.Errorf("AddPush(%s) = %v, want the name not found", u, err)
	}
	if _, err := e.store.AddPushTarget(e.ctx, ann.ID, u, 0, e.clock()); err != nil {
		t.Fatal(err)
	}
	e.change(demosite.ResourceSync)
	if rep, err := n.Run(e.ctx, notify.RunOptions{}); err != nil || rep.Retried != 1 {
		t.Errorf("Run = %+v, %v; want the message tried again later", rep, err)
	}
	if got := d.list(); len(got) != 0 {
		t.Errorf("connections attempted: %q", got)
	}
}
