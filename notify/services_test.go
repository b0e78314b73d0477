package notify

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/fetch"
)

// dials records the connections a client attempts.
type dials struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dials) hook(_, addr string) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
}

func (d *dials) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// listener counts the connections made to a loopback port.
func listener(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), &n
}

// recordingTransport stands in for http.DefaultTransport, which the
// clients shoutrrr's services make for themselves use.
type recordingTransport struct{ n atomic.Int32 }

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.n.Add(1)
	return nil, errors.New("no request may be made here")
}

// pushSamples gives, for each service offered, a URL of it pointing to
// host (an address and port) when its URL names one.
func pushSamples(host string) map[string]string {
	return map[string]string{
		"ntfy":       "ntfy://" + host + "/topic?scheme=http",
		"pushover":   "pushover://shoutrrr:apptoken@userkey/?devices=phone",
		"discord":    "discord://token@123456789",
		"rocketchat": "rocketchat://" + host + "/tokenA/tokenB/general",
		"pagerduty":  "pagerduty://" + host + "/0123456789abcdef0123456789abcdef",
		"gotify":     "gotify://" + host + "/Aaa.bbb.ccc.ddd?disabletls=yes",
		"googlechat": "googlechat://" + host + "/v1/spaces/A/messages?key=k&token=t",
		"hangouts":   "hangouts://" + host + "/v1/spaces/A/messages?key=k&token=t",
		"opsgenie":   "opsgenie://" + host + "/apikey",
		"slack":      "slack://hook:T00000000-B00000000-XXXXXXXXXXXXXXXXXXXXXXXX@webhook",
		"telegram":   "telegram://110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw@telegram?chats=@tidings",
	}
}

// TestCheckPushURLConnectsNowhere: judging a URL of every service
// offered, even one the policy lets through, opens no connection: not
// through tidings' client, not through a client of shoutrrr's, not to
// the host the URL names.
func TestCheckPushURLConnectsNowhere(t *testing.T) {
	host, accepted := listener(t)
	var d dials
	n, err := New(nil, Options{BaseURL: "http://tidings.test/", Client: fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, DialHook: d.hook})})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingTransport{}
	saved := http.DefaultTransport
	http.DefaultTransport = rec
	t.Cleanup(func() { http.DefaultTransport = saved })

	samples := pushSamples(host)
	for scheme := range services {
		raw, ok := samples[scheme]
		if !ok {
			t.Errorf("no sample URL of %s, a service offered", scheme)
			continue
		}
		if err := n.CheckPushURL(context.Background(), raw); err != nil {
			t.Errorf("CheckPushURL(%s) = %v", raw, err)
		}
	}
	// matrix logs in while shoutrrr reads its URL: it is not offered.
	matrix := "matrix://u:p@" + host + "/?disableTLS=yes"
	if err := n.CheckPushURL(context.Background(), matrix); err == nil || !strings.Contains(err.Error(), "does not send to matrix://") {
		t.Errorf("CheckPushURL(%s) = %v, want matrix refused", matrix, err)
	}
	time.Sleep(50 * time.Millisecond)
	if got := d.list(); len(got) != 0 {
		t.Errorf("tidings' client attempted %v", got)
	}
	if k := accepted.Load(); k != 0 {
		t.Errorf("the host the URLs name got %d connections", k)
	}
	if k := rec.n.Load(); k != 0 {
		t.Errorf("%d requests through http.DefaultTransport", k)
	}
}

// TestPushSendRefusesRedirects: the message itself, as tidings sends it
// and as a library sends it through tidings' client, reaches a server
// the policy lets through, and a redirect from there to an address it
// refuses is refused when connecting: nothing reaches that address, and
// the message is given up saying why. (The host is judged before sending
// too; the refusal that counts is the one at connect time, which sees
// what DNS answers then and where redirects lead.)
func TestPushSendRefusesRedirects(t *testing.T) {
	var inner atomic.Int32
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { inner.Add(1) }))
	t.Cleanup(refused.Close)
	var mu sync.Mutex
	var got []string
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.URL.Path+" "+string(b))
		mu.Unlock()
		if strings.Contains(r.URL.Path, "away") {
			http.Redirect(w, r, refused.URL+"/latest/meta-data/", http.StatusTemporaryRedirect)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x"}`)
	}))
	t.Cleanup(allowed.Close)
	host := strings.TrimPrefix(allowed.URL, "http://")
	var d dials
	client := fetch.NewClientAllowing(fetch.ClientOptions{DialHook: d.hook}, host)
	n, err := New(nil, Options{BaseURL: "http://tidings.test/", Client: client, SendTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := push{Title: "Lantern Garden: 1 page changed", Text: "- Lantern Garden (updated)\nhttp://tidings.test/site/x"}
	send := func(raw string) error {
		t.Helper()
		tg, err := n.parseTarget(raw)
		if err != nil {
			t.Fatal(err)
		}
		if tg.svc.own != nil {
			r, err := tg.svc.own(tg.u, p)
			if err != nil {
				t.Fatal(err)
			}
			return n.post(context.Background(), raw, r)
		}
		return n.sendLib(context.Background(), tg, p)
	}
	for _, raw := range []string{"ntfy://" + host + "/here?scheme=http", "gotify://" + host + "/Aaa.bbb.ccc.ddd?disabletls=yes"} {
		if err := send(raw); err != nil {
			t.Errorf("send to %s: %v", raw, err)
		}
	}
	for _, raw := range []string{"ntfy://" + host + "/away?scheme=http", "gotify://" + host + "/away/Aaa.bbb.ccc.ddd?disabletls=yes"} {
		err := send(raw)
		var p permanent
		if !errors.As(err, &p) || !strings.Contains(err.Error(), "127.0.0.1 is a loopback address") {
			t.Errorf("send to %s redirected to loopback: %v, want it given up as refused", raw, err)
		}
		if strings.Contains(err.Error(), "Aaa.bbb") {
			t.Errorf("the error shows the token: %v", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 4 || !strings.Contains(got[0], "Lantern Garden (updated)") || !strings.Contains(got[1], `"title":"Lantern Garden: 1 page changed"`) {
		t.Errorf("the allowed server got %q", got)
	}
	if k := inner.Load(); k != 0 {
		t.Errorf("the refused address got %d requests", k)
	}
	to := strings.TrimPrefix(refused.URL, "http://")
	tried := 0
	for _, a := range d.list() {
		if a == to {
			tried++
		}
	}
	if tried != 2 {
		t.Errorf("the dial hook saw %d attempts at %s, want the 2 redirects refused at connect time: %v", tried, to, d.list())
	}
}
