package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestDocumentationRangesRefused: the ranges kept for examples are
// refused like the other special ones, for sites and pushes alike, and
// judging them needs no connection.
func TestDocumentationRangesRefused(t *testing.T) {
	for _, ip := range []string{"192.0.2.1", "198.51.100.200", "203.0.113.7", "::ffff:203.0.113.7",
		"2001:db8::1", "2001:db8:ffff::1", "3fff::1", "3fff:fff:ffff::1"} {
		if got := RestrictedKind(netip.MustParseAddr(ip)); got != "a documentation address" {
			t.Errorf("RestrictedKind(%s) = %q, want a documentation address", ip, got)
		}
	}
	if got := RestrictedKind(netip.MustParseAddr("2002:cb00:7107::1")); got != "a 6to4 address carrying a documentation address" {
		t.Errorf("6to4 of 203.0.113.7: %q", got)
	}
	for _, ip := range []string{"192.0.3.1", "198.51.101.1", "203.0.114.1", "2001:db9::1", "3fff:1000::1"} {
		if got := RestrictedKind(netip.MustParseAddr(ip)); got != "" {
			t.Errorf("RestrictedKind(%s) = %q, want a public address", ip, got)
		}
	}
	var dialed atomic.Int32
	c := NewClient(ClientOptions{DialHook: func(string, string) { dialed.Add(1) }})
	for _, u := range []string{"https://192.0.2.10/", "http://198.51.100.1:8080/x", "https://203.0.113.5/hook", "https://[2001:db8::5]/"} {
		err := c.CheckAddress(context.Background(), u)
		if err == nil || !strings.Contains(err.Error(), "is a documentation address") {
			t.Errorf("CheckAddress(%s) = %v, want a documentation address refused", u, err)
		}
	}
	if n := dialed.Load(); n != 0 {
		t.Errorf("%d connections attempted while judging addresses", n)
	}
}

// TestNewClientAllowing: a client that lets one loopback server through
// sends to it, and still refuses, at connect time, the loopback address
// it redirects to, through Post and through the client libraries get.
func TestNewClientAllowing(t *testing.T) {
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { otherHits.Add(1) }))
	defer other.Close()
	var hits atomic.Int32
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/away" {
			http.Redirect(w, r, other.URL+"/meta-data", http.StatusTemporaryRedirect)
		}
	}))
	defer allowed.Close()
	var mu sync.Mutex
	var dialed []string
	c := NewClientAllowing(ClientOptions{DialHook: func(_, a string) {
		mu.Lock()
		dialed = append(dialed, a)
		mu.Unlock()
	}}, strings.TrimPrefix(allowed.URL, "http://"))
	ctx := context.Background()
	if _, err := c.Post(ctx, allowed.URL+"/here", "text/plain", []byte("hi"), nil); err != nil {
		t.Fatalf("post to the allowed server: %v", err)
	}
	if _, err := c.Post(ctx, allowed.URL+"/away", "text/plain", []byte("hi"), nil); err == nil || !strings.Contains(err.Error(), "is a loopback address") {
		t.Errorf("post redirected to another loopback address: %v", err)
	}
	req, _ := http.NewRequest(http.MethodPost, allowed.URL+"/away", bytes.NewReader([]byte("hi")))
	if resp, err := c.HTTPClient().Do(req); err == nil || !strings.Contains(err.Error(), "is a loopback address") {
		if err == nil {
			resp.Body.Close()
		}
		t.Errorf("a library's request redirected to another loopback address: %v", err)
	}
	if hits.Load() != 3 || otherHits.Load() != 0 {
		t.Errorf("the allowed server got %d requests (want 3), the other %d (want 0)", hits.Load(), otherHits.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	otherAddr := strings.TrimPrefix(other.URL, "http://")
	tried := 0
	for _, a := range dialed {
		if a == otherAddr {
			tried++
		}
	}
	if tried == 0 {
		t.Errorf("the dial hook never saw %s: the refusal did not come at connect time (%v)", otherAddr, dialed)
	}
}
