package fetch

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
)

// A large body arrives whole, and costs about its own size: io.ReadAll's
// growth took four times that, and four 45 MB sitemaps read at once took
// the process past 300 MB.
func TestLargeBodyAllocatesAboutItsSize(t *testing.T) {
	const size = 24 << 20
	body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/announced" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		// Without a Content-Length, written in pieces: sent chunked.
		for off := 0; off < len(body); off += 1 << 20 {
			w.Write(body[off : off+1<<20])
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	for _, path := range []string{"/chunked", "/announced"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		resp, err := c.Get(context.Background(), srv.URL+path, Conditional{})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(resp.Body, body) {
			t.Fatalf("%s: a body of %d bytes, not the %d sent", path, len(resp.Body), len(body))
		}
		// The body, the first 4 MiB about twice (the buffer that took
		// them grew to it), and the server's and transport's buffers.
		if got := after.TotalAlloc - before.TotalAlloc; got > size+12<<20 {
			t.Errorf("%s: reading %d MiB allocated %d MiB", path, size>>20, got>>20)
		}
	}
}

func TestLargeBodyNearTheLimit(t *testing.T) {
	for _, n := range []int{0, 1, 4<<20 - 1, 4 << 20, 4<<20 + 1, 6 << 20} {
		body := bytes.Repeat([]byte{'x'}, n)
		got, err := readAllOnce(bytes.NewReader(body), -1)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%d bytes: read %d (err %v)", n, len(got), err)
		}
		got, err = readAllOnce(io.LimitReader(bytes.NewReader(body), int64(n)), int64(n))
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%d bytes announced: read %d (err %v)", n, len(got), err)
		}
	}
}

func TestStreamConditional(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, "<urlset/>")
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	st, err := c.Stream(context.Background(), srv.URL, StreamOptions{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(st.Body)
	st.Body.Close()
	if st.NotModified || string(got) != "<urlset/>" || st.ETag != `"v1"` {
		t.Fatalf("first fetch: NotModified %v, body %q, ETag %q", st.NotModified, got, st.ETag)
	}
	st, err = c.Stream(context.Background(), srv.URL, StreamOptions{MaxBytes: 1 << 20, Conditional: Conditional{ETag: st.ETag}})
	if err != nil {
		t.Fatal(err)
	}
	if !st.NotModified || st.Body != nil {
		t.Fatalf("second fetch: NotModified %v, body %v; want a 304 without a body", st.NotModified, st.Body)
	}
}
