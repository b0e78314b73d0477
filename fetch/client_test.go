package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRestrictedKind(t *testing.T) {
	tests := []struct{ ip, want string }{
		{"127.0.0.1", "a loopback address"},
		{"127.8.9.10", "a loopback address"},
		{"::1", "a loopback address"},
		{"::ffff:127.0.0.1", "a loopback address"},
		{"10.1.2.3", "a private address"},
		{"172.16.0.1", "a private address"},
		{"192.168.1.1", "a private address"},
		{"::ffff:192.168.1.1", "a private address"},
		{"fd00::1", "a private address"},
		{"169.254.169.254", "a link-local address"},
		{"fe80::1", "a link-local address"},
		{"0.0.0.0", "an unspecified address"},
		{"::", "an unspecified address"},
		{"224.0.0.251", "a link-local address"},
		{"239.1.1.1", "a multicast address"},
		{"100.64.0.1", "a carrier-grade NAT address"},
		{"0.1.2.3", `a "this network" address`},
		{"192.0.0.8", "an IETF protocol assignment address"},
		{"198.18.0.1", "a benchmarking address"},
		{"198.19.255.254", "a benchmarking address"},
		{"240.0.0.1", "a reserved address"},
		{"255.255.255.255", "a reserved address"},
		{"64:ff9b::7f00:1", "a NAT64 address"},
		{"64:ff9b::5db8:d822", "a NAT64 address"},
		{"64:ff9b:1::a00:1", "a NAT64 address"},
		{"2002:7f00:1::1", "a 6to4 address carrying a loopback address"},
		{"2002:c0a8:101::1", "a 6to4 address carrying a private address"},
		{"2002:a9fe:a9fe::", "a 6to4 address carrying a link-local address"},
		{"2002:5db8:d822::1", ""},
		{"::127.0.0.1", "an IPv4-compatible address"},
		{"::10.0.0.1", "an IPv4-compatible address"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "a Teredo address"},
		{"fec0::1", "a site-local address"},
		{"100::1", "a discard-only address"},
		{"198.20.0.1", ""},
		{"192.0.1.1", ""},
		{"93.184.216.34", ""},
		{"2606:4700::1", ""},
		{"172.32.0.1", ""},
	}
	for _, tt := range tests {
		if got := RestrictedKind(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("RestrictedKind(%s) = %q, want %q", tt.ip, got, tt.want)
		}
	}
}

func TestClientRefusesLoopbackWithoutTheFlag(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	var mu sync.Mutex
	var attempts []string
	c := NewClient(ClientOptions{DialHook: func(network, addr string) {
		mu.Lock()
		attempts = append(attempts, addr)
		mu.Unlock()
	}})
	_, err := c.Get(context.Background(), srv.URL+"/.well-known/resourcesync", Conditional{})
	if err == nil {
		t.Fatal("fetch from a loopback address succeeded without --allow-private-addresses")
	}
	want := srv.URL + "/.well-known/resourcesync was refused: 127.0.0.1 is a loopback address; pass --allow-private-addresses (TIDINGS_ALLOW_PRIVATE_ADDRESSES=1) to allow it"
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(attempts) == 0 || !strings.HasPrefix(attempts[0], "127.0.0.1:") {
		t.Errorf("dial hook saw %v, want the loopback attempt", attempts)
	}
	if hits.Load() != 0 {
		t.Errorf("the server received %d requests; the connection must be refused before it is made", hits.Load())
	}
}

func TestClientRedirectLimit(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+r.URL.Path+"x", http.StatusFound)
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{AllowPrivate: true})
	_, err := c.Get(context.Background(), srv.URL+"/a", Conditional{})
	if err == nil || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Errorf("redirect loop: %v", err)
	}
}

func TestClientRefusesRedirectToOtherSchemes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{AllowPrivate: true})
	_, err := c.Get(context.Background(), srv.URL, Conditional{})
	if err == nil || !strings.Contains(err.Error(), "file: URL") {
		t.Errorf("redirect to file: %v", err)
	}
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

func TestClientBodies(t *testing.T) {
	const doc = "<urlset/>"
	big := strings.Repeat("x", 2000)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		max     int64
		want    string
		wantErr string
	}{
		{"plain", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(doc)) }, 0, doc, ""},
		{"content-encoding gzip", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped(t, doc))
		}, 0, doc, ""},
		{"gzip file without content-encoding", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(gzipped(t, doc))
		}, 0, doc, ""},
		{"gzip file served with content-encoding gzip", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped(t, string(gzipped(t, doc))))
		}, 0, doc, ""},
		{"over the cap", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(big)) }, 1000, "", "is larger than the limit of 1000 bytes"},
		{"gzip bomb over the cap", func(w http.ResponseWriter, r *http.Request) { w.Write(gzipped(t, big)) }, 1000, "", "is larger than the limit"},
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, 0, "", "returned 404 Not Found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			c := NewClient(ClientOptions{AllowPrivate: true, MaxBody: tt.max})
			resp, err := c.Get(context.Background(), srv.URL, Conditional{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Body) != tt.want {
				t.Errorf("body = %q, want %q", resp.Body, tt.want)
			}
		})
	}
}

func TestClientConditionalGet(t *testing.T) {
	var ua string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua = r.Header.Get("User-Agent")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Sat, 21 Nov 2026 10:00:00 GMT")
		if r.Header.Get("If-None-Match") == `"v1"` && r.Header.Get("If-Modified-Since") != "" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write([]byte("body"))
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{AllowPrivate: true, UserAgent: "tidings/1.0 (+https://t.example/)"})
	first, err := c.Get(context.Background(), srv.URL, Conditional{})
	if err != nil || first.NotModified || first.ETag != `"v1"` {
		t.Fatalf("first fetch: %+v, %v", first, err)
	}
	second, err := c.Get(context.Background(), srv.URL, Conditional{ETag: first.ETag, LastModified: first.LastModified})
	if err != nil || !second.NotModified || len(second.Body) != 0 {
		t.Fatalf("conditional fetch: %+v, %v", second, err)
	}
	if ua != "tidings/1.0 (+https://t.example/)" {
		t.Errorf("User-Agent = %q", ua)
	}
}

func TestRedirectToAPrivateAddressIsRefused(t *testing.T) {
	var privateHits atomic.Int32
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { privateHits.Add(1) }))
	defer private.Close()
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, private.URL+"/latest/meta-data/", http.StatusFound)
	}))
	defer public.Close()
	c := NewClient(ClientOptions{})
	publicAddr := strings.TrimPrefix(public.URL, "http://")
	c.allowAddr = func(a string) bool { return a == publicAddr }
	_, err := c.Get(context.Background(), public.URL+"/sitemap.xml", Conditional{})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1 is a loopback address") {
		t.Errorf("redirect from an allowed host to a loopback one: %v", err)
	}
	if privateHits.Load() != 0 {
		t.Errorf("the private server got %d requests", privateHits.Load())
	}
}

func TestANameResolvingToLoopbackIsRefused(t *testing.T) {
	name := loopbackHostsName(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	var mu sync.Mutex
	var dialed []string
	c := NewClient(ClientOptions{DialHook: func(_, a string) {
		mu.Lock()
		dialed = append(dialed, a)
		mu.Unlock()
	}})
	// A name, not an address: judged by what it resolves to when connecting.
	_, err := c.Get(context.Background(), "http://"+name+":"+port+"/", Conditional{})
	if err == nil || !strings.Contains(err.Error(), "is a loopback address") {
		t.Errorf("a name resolving to loopback: %v", err)
	}
	if err := c.CheckAddress(context.Background(), "http://"+name+"/"); err == nil {
		t.Errorf("CheckAddress allowed %s", name)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) == 0 {
		t.Error("the dial hook saw no attempt")
	}
}

// loopbackHostsName returns a name /etc/hosts maps to a loopback address,
// other than localhost, so that resolving it sends no DNS query.
func loopbackHostsName(t *testing.T) string {
	data, err := os.ReadFile("/etc/hosts")
	if err != nil {
		t.Skipf("no /etc/hosts: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		ip, err := netip.ParseAddr(f[0])
		if err != nil || !ip.Is4() || !ip.IsLoopback() {
			continue
		}
		for _, name := range f[1:] {
			if n := strings.ToLower(name); n != "localhost" && !strings.HasSuffix(n, ".localhost") {
				return name
			}
		}
	}
	t.Skip("/etc/hosts maps no name but localhost to 127.0.0.0/8")
	return ""
}

// TestLocalhostNamesAreRefusedBeforeResolving: RFC 6761 names never reach
// the resolver or the dialer, whatever the spelling or the way in (a
// request, a streamed download, a POST, a redirect, the form's check).
func TestLocalhostNamesAreRefusedBeforeResolving(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, "http://admin.localhost/", http.StatusFound)
	}))
	defer srv.Close()
	var mu sync.Mutex
	var dialed []string
	c := NewClient(ClientOptions{DialHook: func(_, a string) {
		mu.Lock()
		dialed = append(dialed, a)
		mu.Unlock()
	}})
	ctx := context.Background()
	for _, u := range []string{"http://localhost/", "http://LOCALHOST./x", "https://app.localhost:8443/", "http://a.b.localhost/"} {
		want := "is a name reserved for loopback (RFC 6761)"
		if _, err := c.Get(ctx, u, Conditional{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Get %s: %v", u, err)
		}
		if _, err := c.Stream(ctx, u, StreamOptions{MaxBytes: 1 << 10}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Stream %s: %v", u, err)
		}
		if _, err := c.PostForm(ctx, u, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("PostForm %s: %v", u, err)
		}
		if err := c.CheckAddress(ctx, u); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckAddress %s: %v", u, err)
		}
	}
	mu.Lock()
	if len(dialed) != 0 {
		t.Errorf("the dial hook saw %v; no connection may be attempted", dialed)
	}
	mu.Unlock()
	for _, host := range []string{"localhost.example", "notlocalhost", "localhost-1"} {
		if err := c.checkName(host); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}

	// A public host (the test server, let through) redirecting to one.
	pub := NewClient(ClientOptions{})
	addr := strings.TrimPrefix(srv.URL, "http://")
	pub.allowAddr = func(a string) bool { return a == addr }
	if _, err := pub.Get(ctx, srv.URL+"/page", Conditional{}); err == nil || !strings.Contains(err.Error(), "admin.localhost is a name reserved for loopback") {
		t.Errorf("redirect to admin.localhost: %v", err)
	}
	allowed := NewClient(ClientOptions{AllowPrivate: true})
	if err := allowed.CheckAddress(ctx, "http://app.localhost/"); err != nil {
		t.Errorf("with private addresses allowed: %v", err)
	}
}

func TestMinHostDelaySpacesRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	c := NewClient(ClientOptions{AllowPrivate: true, MinHostDelay: 40 * time.Millisecond})
	start := time.Now()
	for range 3 {
		if _, err := c.Get(context.Background(), srv.URL+"/", Conditional{}); err != nil {
			t.Fatal(err)
		}
	}
	// robots.txt, then three requests: at least three gaps.
	if d := time.Since(start); d < 120*time.Millisecond {
		t.Errorf("4 requests to one host with a 40ms delay took %v", d)
	}
}
