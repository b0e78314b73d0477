package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// hostile is a loopback site whose pages never end, and which counts the
// requests it answers.
type hostile struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newHostile(t *testing.T) *hostile {
	t.Helper()
	h := &hostile{hits: map[string]int{}}
	chunk := bytes.Repeat([]byte("<p>and more</p>\n"), 2048) // 32 KiB
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[r.URL.Path]++
		h.mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt":
			w.WriteHeader(http.StatusNotFound) // no body: the budget counts bodies of errors too
			return
		case r.URL.Path == "/small.html":
			w.Header().Set("Content-Type", "text/html")
			w.Write(chunk[:1000])
			return
		case r.URL.Path == "/compressed.xml":
			// Noise, so that the compressed bytes are about as many.
			noise := make([]byte, 64<<10)
			rand.NewChaCha8([32]byte{1}).Read(noise)
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			for r.Context().Err() == nil {
				if _, err := zw.Write(noise); err != nil {
					return
				}
			}
			return
		case strings.HasPrefix(r.URL.Path, "/file"):
			w.Header().Set("Content-Type", "application/octet-stream")
		case strings.HasPrefix(r.URL.Path, "/announced"):
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", r.URL.Query().Get("length"))
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hostile) hit(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

// socketReads makes c count the bytes it reads from its connections:
// what actually crossed the wire to it, headers and read-ahead included.
func socketReads(c *Client) *atomic.Int64 {
	tr := c.hc.Transport.(*http.Transport)
	dial := tr.DialContext
	n := new(atomic.Int64)
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countedConn{Conn: conn, n: n}, nil
	}
	return n
}

type countedConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestBudgetStopsEndlessBodiesAcrossRequests: the first endless page is
// cut off where the budget ends, and the pages after it are not even
// asked for.
func TestBudgetStopsEndlessBodiesAcrossRequests(t *testing.T) {
	site := newHostile(t)
	c := NewClient(ClientOptions{AllowPrivate: true})
	wire := socketReads(c)
	b := NewBudget("the check's download budget", 1<<20)
	ctx := WithBudget(context.Background(), b)
	_, err := c.GetWith(ctx, site.URL+"/page1", GetOptions{Types: PageTypes})
	if !errors.Is(err, ErrBudgetSpent) || !strings.Contains(err.Error(), "/page1 was cut off: the check's download budget of 1 MiB is spent") {
		t.Fatalf("first endless page: %v", err)
	}
	for _, p := range []string{"/page2", "/page3", "/file4"} {
		_, err := c.GetWith(ctx, site.URL+p, GetOptions{Types: PageTypes})
		if !errors.Is(err, ErrBudgetSpent) || !strings.Contains(err.Error(), p+" was not fetched: the check's download budget of 1 MiB is spent") {
			t.Errorf("%s: %v", p, err)
		}
		if _, err := c.Stream(ctx, site.URL+p, StreamOptions{MaxBytes: 1 << 30}); !errors.Is(err, ErrBudgetSpent) {
			t.Errorf("stream of %s: %v", p, err)
		}
		if n := site.hit(p); n != 0 {
			t.Errorf("%s was asked for %d times once the budget was spent", p, n)
		}
	}
	if b.Used() > b.Max()+1 || b.Left() != 0 {
		t.Errorf("used %d of %d, %d left", b.Used(), b.Max(), b.Left())
	}
	if n := wire.Load(); n > b.Max()+64<<10 {
		t.Errorf("%d bytes crossed the wire for a budget of %d", n, b.Max())
	}
	t.Logf("budget %d: %d bytes counted, %d read from the socket", b.Max(), b.Used(), wire.Load())
}

// TestBudgetCountsCompressedBytes: an endless gzip body is cut off by the
// bytes it sends, and the error still says which budget stopped it.
func TestBudgetCountsCompressedBytes(t *testing.T) {
	site := newHostile(t)
	c := NewClient(ClientOptions{AllowPrivate: true})
	b := NewBudget("the check's download budget", 1<<20)
	_, err := c.Get(WithBudget(context.Background(), b), site.URL+"/compressed.xml", Conditional{})
	if !errors.Is(err, ErrBudgetSpent) || !strings.Contains(err.Error(), "was cut off: the check's download budget of 1 MiB is spent") {
		t.Fatalf("endless gzip body: %v", err)
	}
	if b.Used() > b.Max()+1 {
		t.Errorf("used %d of %d", b.Used(), b.Max())
	}
}

// TestBudgetIsSharedByConcurrentRequests: requests made at once draw on
// one budget without overdrawing it together.
func TestBudgetIsSharedByConcurrentRequests(t *testing.T) {
	site := newHostile(t)
	c := NewClient(ClientOptions{AllowPrivate: true})
	wire := socketReads(c)
	b := NewBudget("", 2<<20)
	ctx := WithBudget(context.Background(), b)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			if i%2 == 0 {
				_, errs[i] = c.Get(ctx, site.URL+"/page"+strconv.Itoa(i), Conditional{})
				return
			}
			st, err := c.Stream(ctx, site.URL+"/page"+strconv.Itoa(i), StreamOptions{MaxBytes: 1 << 30})
			if err != nil {
				errs[i] = err
				return
			}
			defer st.Body.Close()
			_, errs[i] = io.Copy(io.Discard, st.Body)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, ErrBudgetSpent) || !strings.Contains(err.Error(), "the download budget of 2 MiB is spent") {
			t.Errorf("request %d: %v", i, err)
		}
	}
	if b.Used() > b.Max()+int64(len(errs)) {
		t.Errorf("used %d of %d", b.Used(), b.Max())
	}
	if n := wire.Load(); n > b.Max()+int64(len(errs))*64<<10 {
		t.Errorf("%d bytes crossed the wire for a budget of %d", n, b.Max())
	}
	t.Logf("budget %d: %d bytes counted, %d read from the socket", b.Max(), b.Used(), wire.Load())
}

// TestBudgetLetsSmallDocumentsThrough: documents within the budget are
// read whole, each counted, and a body ending exactly at the budget is
// whole too.
func TestBudgetLetsSmallDocumentsThrough(t *testing.T) {
	site := newHostile(t)
	c := NewClient(ClientOptions{AllowPrivate: true})
	b := NewBudget("", 3000)
	ctx := WithBudget(context.Background(), b)
	for range 3 {
		resp, err := c.GetWith(ctx, site.URL+"/small.html", GetOptions{Types: PageTypes})
		if err != nil || len(resp.Body) != 1000 {
			t.Fatalf("small page: %v", err)
		}
	}
	if b.Used() != 3000 || b.Left() != 0 {
		t.Errorf("used %d, left %d; want 3000 and 0", b.Used(), b.Left())
	}
}

// TestGetStopsAtTheHeadersForOtherTypes: an endless file that is not a
// page is refused on its Content-Type, having read no more than the
// headers and the transport's first read.
func TestGetStopsAtTheHeadersForOtherTypes(t *testing.T) {
	site := newHostile(t)
	c := NewClient(ClientOptions{AllowPrivate: true})
	wire := socketReads(c)
	_, err := c.GetWith(context.Background(), site.URL+"/file.bin", GetOptions{Types: PageTypes})
	if !errors.Is(err, ErrUnwantedType) || !strings.Contains(err.Error(), "/file.bin was not downloaded: it is application/octet-stream, not a type of document tidings reads here") {
		t.Fatalf("endless octet-stream: %v", err)
	}
	if n := wire.Load(); n > 8<<10 {
		t.Errorf("%d bytes read from the socket for a refused answer", n)
	}
	t.Logf("refused at the headers after %d bytes", wire.Load())
}

func TestTypeAllowed(t *testing.T) {
	for _, tt := range []struct {
		ct string
		ok bool
	}{
		{"text/html", true},
		{"Text/HTML; charset=ISO-8859-1", true},
		{"application/xhtml+xml", true},
		{"text/plain", true},
		{"text/markdown; charset=utf-8", true},
		{"application/xml", true},
		{"application/rss+xml", true},
		{"application/atom+xml;charset=utf-8", true},
		{"application/json", true},
		{"application/ld+json", true},
		{"", true}, // sniffed by the reader, bounded by the caps
		{"application/octet-stream", false},
		{"application/pdf", false},
		{"image/svg+xml", true},
		{"image/png", false},
		{"video/mp4", false},
		{"application/zip", false},
		{"application/x-gzip", false},
		{"textual/html", false},
		{"application/xml-dtd", false},
	} {
		if got := typeAllowed(tt.ct, PageTypes); got != tt.ok {
			t.Errorf("typeAllowed(%q) = %v, want %v", tt.ct, got, tt.ok)
		}
	}
}

// TestGetRefusesAnnouncedLengthsBeforeReading: a Content-Length over the
// request's cap, the client's, or what is left of the budget is refused
// before the body is read.
func TestGetRefusesAnnouncedLengthsBeforeReading(t *testing.T) {
	site := newHostile(t)
	for _, tt := range []struct {
		name    string
		client  int64
		opts    GetOptions
		budget  int64
		length  int64
		is      error
		message string
	}{
		{"request's cap", 0, GetOptions{MaxBody: 1 << 20}, 0, 100 << 20, ErrTooLarge,
			"is larger than the limit of 1 MiB: it announces 100 MiB"},
		{"client's cap", 1 << 20, GetOptions{}, 0, 100 << 20, ErrTooLarge,
			"is larger than the limit of 1 MiB (--max-body): it announces 100 MiB"},
		{"request's cap above the client's", 1 << 20, GetOptions{MaxBody: 64 << 20}, 0, 100 << 20, ErrTooLarge,
			"is larger than the limit of 1 MiB (--max-body): it announces 100 MiB"},
		{"budget", 0, GetOptions{}, 1 << 20, 10 << 20, ErrBudgetSpent,
			"was not downloaded: it announces 10 MiB, more than is left before the download budget of 1 MiB is spent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(ClientOptions{AllowPrivate: true, MaxBody: tt.client})
			wire := socketReads(c)
			ctx := context.Background()
			if tt.budget > 0 {
				ctx = WithBudget(ctx, NewBudget("", tt.budget))
			}
			_, err := c.GetWith(ctx, site.URL+"/announced?length="+strconv.FormatInt(tt.length, 10), tt.opts)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("err %v, want %q", err, tt.message)
			}
			if n := wire.Load(); n > 8<<10 {
				t.Errorf("%d bytes read from the socket for a refused answer", n)
			}
		})
	}
}
