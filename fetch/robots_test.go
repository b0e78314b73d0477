package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestInetAton(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"2130706433", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"},
		{"10.0.0.1", "10.0.0.1"},
		{"3232235777", "192.168.1.1"},
		{"example.com", ""},
		{"cafe", ""},
		{"1.2.3.4.5", ""},
		{"256.1.1.1", ""},
		{"1.2.3.256", ""},
		{"0b1", ""},
		{"1_000", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := inetAton(tt.in)
		if (tt.want == "") != !ok || (ok && got != netip.MustParseAddr(tt.want)) {
			t.Errorf("inetAton(%q) = %v, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestOtherIPv4SpellingsAreJudgedByWhatTheyMean(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, host := range []string{"2130706433", "0177.0.0.1", "0x7f.0.0.1", "127.1"} {
		var mu sync.Mutex
		var dialed []string
		c := NewClient(ClientOptions{DialHook: func(_, addr string) {
			mu.Lock()
			dialed = append(dialed, addr)
			mu.Unlock()
		}})
		_, err := c.Get(context.Background(), "http://"+host+":"+port+"/", Conditional{})
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1 is a loopback address") {
			t.Errorf("%s: %v, want a refusal naming 127.0.0.1", host, err)
		}
		if err := c.CheckAddress(context.Background(), "http://"+host+"/"); err == nil {
			t.Errorf("CheckAddress(%s) allowed it", host)
		}
		mu.Lock()
		if len(dialed) == 0 || dialed[0] != "127.0.0.1:"+port {
			t.Errorf("%s: dial hook saw %v", host, dialed)
		}
		mu.Unlock()
	}
	if hits.Load() != 0 {
		t.Errorf("the server got %d requests; refusals must happen before connecting", hits.Load())
	}
	c := NewClient(ClientOptions{AllowPrivate: true})
	if _, err := c.Get(context.Background(), "http://2130706433:"+port+"/x", Conditional{}); err != nil {
		t.Errorf("with private addresses allowed, the decimal spelling should reach 127.0.0.1: %v", err)
	}
}

func TestRobotsTxtIsHonoured(t *testing.T) {
	var robotsHits atomic.Int32
	robots, robotsStatus := "User-agent: *\nDisallow: /\n\nUser-agent: tidings\nDisallow: /private/\nAllow: /\n", http.StatusOK
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsHits.Add(1)
			mu.Lock()
			defer mu.Unlock()
			if robotsStatus != http.StatusOK {
				w.WriteHeader(robotsStatus)
				return
			}
			w.Write([]byte(robots))
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{AllowPrivate: true})
	get := func(path string) error {
		_, err := c.Get(context.Background(), srv.URL+path, Conditional{})
		return err
	}
	if err := get("/public/page"); err != nil {
		t.Errorf("an allowed path: %v", err)
	}
	if err := get("/private/page"); err == nil || !strings.Contains(err.Error(), "is disallowed for tidings by the site's robots.txt") {
		t.Errorf("a disallowed path: %v", err)
	}
	if n := robotsHits.Load(); n != 1 {
		t.Errorf("robots.txt fetched %d times, want once (cached)", n)
	}
	for _, tt := range []struct {
		status  int
		allowed bool
	}{{http.StatusNotFound, true}, {http.StatusForbidden, true}, {http.StatusInternalServerError, false}} {
		mu.Lock()
		robotsStatus = tt.status
		mu.Unlock()
		c := NewClient(ClientOptions{AllowPrivate: true})
		_, err := c.Get(context.Background(), srv.URL+"/private/page", Conditional{})
		if (err == nil) != tt.allowed {
			t.Errorf("robots.txt answering %d: %v; allowed should be %v", tt.status, err, tt.allowed)
		}
	}
}
