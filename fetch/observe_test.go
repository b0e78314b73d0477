package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestObserverHearsEachRequestOfItsContextOnly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
		case "/doc.xml":
			w.Write([]byte("<urlset/>"))
		case "/same.xml":
			w.WriteHeader(http.StatusNotModified)
		case "/file.scp":
			w.Write([]byte("{}\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var mu sync.Mutex
	var heard []Fetched
	c := NewClient(ClientOptions{AllowPrivate: true})
	ctx := WithObserver(context.Background(), func(f Fetched) {
		mu.Lock()
		heard = append(heard, f)
		mu.Unlock()
	})
	c.Get(ctx, srv.URL+"/doc.xml", Conditional{})
	c.Get(ctx, srv.URL+"/same.xml", Conditional{ETag: `"x"`})
	c.Get(ctx, srv.URL+"/gone.xml", Conditional{})
	c.Get(ctx, srv.URL+"/private/x.xml", Conditional{})
	if s, err := c.Stream(ctx, srv.URL+"/file.scp", StreamOptions{MaxBytes: 100}); err == nil {
		s.Body.Close()
	}
	// Another caller's requests on the same client are not heard.
	c.Get(context.Background(), srv.URL+"/doc.xml?other", Conditional{})

	want := []struct {
		path   string
		status int
		notMod bool
		bytes  int64
		err    string
	}{
		{"/robots.txt", 200, false, 34, ""},
		{"/doc.xml", 200, false, 9, ""},
		{"/same.xml", 304, true, 0, ""},
		{"/gone.xml", 404, false, 0, "404"},
		{"/private/x.xml", 0, false, 0, "robots.txt"},
		{"/file.scp", 200, false, 0, ""},
	}
	if len(heard) != len(want) {
		t.Fatalf("heard %d requests, want %d: %+v", len(heard), len(want), heard)
	}
	for i, w := range want {
		h := heard[i]
		if h.URL != srv.URL+w.path || h.Status != w.status || h.NotModified != w.notMod || h.Bytes != w.bytes {
			t.Errorf("request %d: heard %+v, want %+v", i, h, w)
		}
		if (w.err == "") != (h.Err == nil) || h.Err != nil && !strings.Contains(h.Err.Error(), w.err) {
			t.Errorf("request %d: error %v, want one containing %q", i, h.Err, w.err)
		}
	}
}

func TestObserversNest(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	var mu sync.Mutex
	var outer, inner []string
	ctx := WithObserver(context.Background(), func(f Fetched) {
		mu.Lock()
		defer mu.Unlock()
		outer = append(outer, f.URL)
	})
	c := NewClient(ClientOptions{AllowPrivate: true})
	c.Get(ctx, srv.URL+"/a", Conditional{})
	ctx = WithObserver(ctx, func(f Fetched) {
		mu.Lock()
		defer mu.Unlock()
		inner = append(inner, f.URL)
	})
	c.Get(ctx, srv.URL+"/b", Conditional{})
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(outer, " ") != srv.URL+"/robots.txt "+srv.URL+"/a "+srv.URL+"/b" || strings.Join(inner, " ") != srv.URL+"/b" {
		t.Errorf("the outer observer heard %q, the inner %q", outer, inner)
	}
}
