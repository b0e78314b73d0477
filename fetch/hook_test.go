package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

func TestClientOnResponse(t *testing.T) {
	doc := bytes.Repeat([]byte("<urlset/>"), 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/doc.xml":
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write(doc)
			zw.Close()
		case "/same.xml":
			w.WriteHeader(http.StatusNotModified)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	type call struct {
		host   string
		status int
		bytes  int64
	}
	var mu sync.Mutex
	var calls []call
	c := NewClient(ClientOptions{AllowPrivate: true, OnResponse: func(host string, status int, n int64) {
		mu.Lock()
		calls = append(calls, call{host, status, n})
		mu.Unlock()
	}})
	ctx := context.Background()
	if _, err := c.Get(ctx, srv.URL+"/doc.xml", Conditional{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, srv.URL+"/same.xml", Conditional{ETag: `"x"`}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, srv.URL+"/gone.xml", Conditional{}); err == nil {
		t.Fatal("a 404 was not an error")
	}
	// Other answers (robots.txt) may come in between.
	for _, want := range []call{{"127.0.0.1", 200, int64(len(doc))}, {"127.0.0.1", 304, 0}, {"127.0.0.1", 404, 0}} {
		if !slices.Contains(calls, want) {
			t.Errorf("OnResponse calls %v lack %v", calls, want)
		}
	}
}
