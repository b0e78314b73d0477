package sitecheck

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tidings/harvest"
)

// cannon is a site whose home page links endless pages and endless
// files: what an anonymous check must not download whole.
type cannon struct {
	*httptest.Server
	sent     atomic.Int64 // body bytes the server wrote
	requests atomic.Int64
}

func newCannon(t *testing.T, pages, files int) *cannon {
	c := &cannon{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.requests.Add(1)
		switch {
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html")
			var b strings.Builder
			b.WriteString("<!doctype html><title>Cannon</title><p>Links.</p>")
			for i := range pages {
				fmt.Fprintf(&b, `<a href="/page%d.html">page %d</a> `, i, i)
			}
			for i := range files {
				fmt.Fprintf(&b, `<a href="/file%d">file %d</a> `, i, i)
			}
			c.write(w, b.String())
		case strings.HasPrefix(r.URL.Path, "/page"):
			w.Header().Set("Content-Type", "text/html")
			c.endless(w, r, "<p>"+strings.Repeat("words of an endless page ", 400)+"</p>\n")
		case strings.HasPrefix(r.URL.Path, "/file"):
			w.Header().Set("Content-Type", "application/octet-stream")
			c.endless(w, r, strings.Repeat("\x00\x01\x02\x03", 2500))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *cannon) write(w http.ResponseWriter, s string) {
	n, _ := w.Write([]byte(s))
	c.sent.Add(int64(n))
}

// endless writes chunk until the client goes away.
func (c *cannon) endless(w http.ResponseWriter, r *http.Request, chunk string) {
	for r.Context().Err() == nil {
		n, err := w.Write([]byte(chunk))
		c.sent.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// TestCheckOfADownloadCannon: a home page linking 20 endless pages and
// 20 endless files costs one check its download budget and no more:
// pages stop at the snapshot limit, files at their headers, and the
// whole check at the budget.
func TestCheckOfADownloadCannon(t *testing.T) {
	site := newCannon(t, 20, 20)
	_, ck := testChecker(t, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: 5}})
	start := time.Now()
	rep := runCheck(t, ck, site.URL)
	sent := site.sent.Load()
	t.Logf("the check took %s, made %d requests, read %d bytes; the site wrote %d", time.Since(start).Round(time.Millisecond),
		site.requests.Load(), rep.Downloaded, sent)
	if rep.DownloadBudget != DefaultCheckBytes || rep.Downloaded > DefaultCheckBytes+64<<10 {
		t.Errorf("read %d bytes of a budget of %d", rep.Downloaded, rep.DownloadBudget)
	}
	// The site writes more than was read: what fills the sockets'
	// buffers (several MB on loopback) before a read stops is never
	// read. Each request costs at most the snapshot limit and that.
	if n := site.requests.Load(); n > 20 {
		t.Errorf("%d requests for one check", n)
	}
	if !rep.Followable {
		t.Errorf("the home page is still a page to watch: %s", rep.Verdict)
	}
}
