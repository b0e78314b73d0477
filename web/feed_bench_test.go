package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"tidings/metrics"
)

// discard is a ResponseWriter that keeps nothing, so that a benchmark
// measures the handler rather than a recorder's copying.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkFeedHit serves a cached feed through the whole server, with
// metrics as serve has them, beside a bare handler writing the same bytes:
// what routing, middleware and the cache cost on a hit. With -etag the
// reader's copy is current (304).
func BenchmarkFeedHit(b *testing.B) {
	fx := newFixture(b, nil)
	s, err := New(fx.store, Options{BaseURL: testBase, Metrics: metrics.New()})
	if err != nil {
		b.Fatal(err)
	}
	// The public address: the old numeric one would measure a redirect.
	path := public(b, fx.store, "/feeds/1.atom?entries=page")
	first := httptest.NewRecorder()
	s.Handler().ServeHTTP(first, httptest.NewRequest(http.MethodGet, path, nil))
	if first.Code != http.StatusOK {
		b.Fatalf("GET %s: %d", path, first.Code)
	}
	body, etag := first.Body.Bytes(), first.Header().Get("ETag")
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
		w.Write(body)
	})
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"tidings", s.Handler()}, {"bare", bare}} {
		for _, inm := range []string{"", etag} {
			name := h.name + "/200"
			if inm != "" {
				name = h.name + "/304"
			}
			b.Run(name, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, path, nil)
				if inm != "" {
					req.Header.Set("If-None-Match", inm)
				}
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					w := &discard{}
					for pb.Next() {
						w.h = http.Header{}
						h.h.ServeHTTP(w, req)
					}
				})
			})
		}
	}
}
