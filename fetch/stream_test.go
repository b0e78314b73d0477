package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestStreamDoesNotInflate(t *testing.T) {
	payload := gzipped(t, strings.Repeat("{}\n", 1000))
	var acceptEncoding atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acceptEncoding.Store(r.Header.Get("Accept-Encoding"))
		// A server that encodes whatever it is asked: the bytes must
		// still arrive as sent, so that their count is the compressed one.
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(payload)
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	st, err := c.Stream(context.Background(), srv.URL+"/x.scp.gz", StreamOptions{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(st.Body)
	st.Body.Close()
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("body of %d bytes (err %v), want the %d bytes sent", len(got), err, len(payload))
	}
	if ae := acceptEncoding.Load(); ae != "identity" {
		t.Errorf("Accept-Encoding %q, want identity", ae)
	}
}

func TestStreamCaps(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 10_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			// No Content-Length: the cap applies while reading.
			w.Write(body[:5000])
			w.(http.Flusher).Flush()
			w.Write(body[5000:])
			return
		}
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", "10000")
		w.Write(body)
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	ctx := context.Background()
	if _, err := c.Stream(ctx, srv.URL+"/announced", StreamOptions{MaxBytes: 9_999}); err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("announced length over the cap: %v", err)
	}
	st, err := c.Stream(ctx, srv.URL+"/chunked", StreamOptions{MaxBytes: 9_999})
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, st.Body)
	st.Body.Close()
	if !errors.Is(err, errStreamTooLarge) || n > 10_000 {
		t.Errorf("chunked body over the cap: %d bytes, err %v", n, err)
	}
	if st, err := c.Stream(ctx, srv.URL+"/chunked", StreamOptions{MaxBytes: 10_000}); err != nil {
		t.Error(err)
	} else if n, err := io.Copy(io.Discard, st.Body); err != nil || n != 10_000 {
		t.Errorf("body at the cap: %d bytes, err %v", n, err)
	}
	var fe *FetchError
	if _, err := c.Stream(ctx, srv.URL+"/missing", StreamOptions{MaxBytes: 10}); !errors.As(err, &fe) || fe.Status != 404 {
		t.Errorf("404: %v", err)
	}
}

// TestStreamRetryAfter: a download answered 429 or 503 says how long the
// site asked to wait, as Get does.
func TestStreamRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7200")
		switch r.URL.Path {
		case "/busy":
			w.WriteHeader(http.StatusTooManyRequests)
		case "/down":
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	for path, want := range map[string]time.Duration{"/busy": 2 * time.Hour, "/down": 2 * time.Hour, "/missing": 0} {
		var fe *FetchError
		_, err := c.Stream(context.Background(), srv.URL+path, StreamOptions{MaxBytes: 10})
		if !errors.As(err, &fe) {
			t.Fatalf("%s: %v, want a FetchError", path, err)
		}
		if fe.RetryAfter != want {
			t.Errorf("%s: %v with a wait of %v, want %v", path, err, fe.RetryAfter, want)
		}
	}
}

func TestStreamRefusesLoopbackWithoutTheFlag(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	var dials atomic.Int32
	c := NewClient(ClientOptions{DialHook: func(string, string) { dials.Add(1) }})
	_, err := c.Stream(context.Background(), srv.URL+"/x.scp.zst", StreamOptions{MaxBytes: 10})
	var ae *AddressError
	if !errors.As(err, &ae) || dials.Load() == 0 || hits.Load() != 0 {
		t.Errorf("err %v, dials %d, requests %d: want a refusal before connecting", err, dials.Load(), hits.Load())
	}
}
