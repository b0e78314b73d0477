package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// get asks site for path and reads at most n bytes of the answer.
func get(t *testing.T, site *hostileSite, path string, n int64) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(site.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, n))
	return resp, string(body)
}

// waitStill waits until the site has stopped writing: an endless answer
// ends when its reader goes.
func waitStill(t *testing.T, site *hostileSite) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		n := site.sent()
		time.Sleep(100 * time.Millisecond)
		if site.sent() == n {
			return
		}
	}
	t.Fatal("the site still writes after its reader went")
}

func TestCannonSite(t *testing.T) {
	site, err := startSite(cannonSite)
	if err != nil {
		t.Fatal(err)
	}
	defer site.close()
	_, home := get(t, site, "/", 1<<20)
	if n := strings.Count(home, "<a href="); n != 2*cannonLinks {
		t.Errorf("the home page links %d addresses, want %d", n, 2*cannonLinks)
	}
	for path, ct := range map[string]string{"/page3.html": "text/html", "/file7": "application/octet-stream"} {
		resp, body := get(t, site, path, 1<<20)
		if resp.Header.Get("Content-Type") != ct || len(body) != 1<<20 {
			t.Errorf("%s: %s, %d bytes read", path, resp.Header.Get("Content-Type"), len(body))
		}
	}
	waitStill(t, site)
	if site.requests.Load() != 3 || site.sent() < 2<<20 || site.busy() <= 0 || !site.bounded() {
		t.Errorf("%d requests, %d bytes written in %s", site.requests.Load(), site.sent(), site.busy())
	}
	site.reset()
	if site.requests.Load() != 0 || site.sent() != 0 || site.busy() != 0 {
		t.Error("reset kept counts")
	}
}

func TestDripSite(t *testing.T) {
	site, err := startSite(dripSite)
	if err != nil {
		t.Fatal(err)
	}
	defer site.close()
	start := time.Now()
	resp, body := get(t, site, "/slow2.html", 1)
	if resp.StatusCode != 200 || body != " " || time.Since(start) > dripEvery {
		t.Errorf("%d %q after %s; want a first byte at once", resp.StatusCode, body, time.Since(start))
	}
	waitStill(t, site)
	if _, home := get(t, site, "/", 1<<20); strings.Count(home, `href="/slow`) != dripPages {
		t.Errorf("home page %q", home)
	}
}

func TestSessionSite(t *testing.T) {
	site, err := startSite(sessionSite)
	if err != nil {
		t.Fatal(err)
	}
	defer site.close()
	_, a := get(t, site, "/s/a1b2c3/p4.html", 1<<20)
	_, b := get(t, site, "/p4.html;jsessionid=00ff", 1<<20)
	if !strings.Contains(a, "<title>Page 4</title>") || !strings.Contains(b, "<title>Page 4</title>") {
		t.Errorf("one page under two sessions: %.60q, %.60q", a, b)
	}
	if n := strings.Count(a, "<a href="); n != 3*sessionPages || a == b {
		t.Errorf("%d links, the same ids twice: %v", n, a == b)
	}
}

func TestSoft404Site(t *testing.T) {
	site, err := startSite(soft404Site)
	if err != nil {
		t.Fatal(err)
	}
	defer site.close()
	for _, path := range []string{"/robots.txt", "/no/such/page.html", "/sitemap.xml"} {
		resp, body := get(t, site, path, 1<<20)
		if resp.StatusCode != 200 || strings.Count(body, "<a href=") != 5 {
			t.Errorf("%s: %d %q", path, resp.StatusCode, body)
		}
	}
}

func TestRequests(t *testing.T) {
	if requests(1) != "1 request" || requests(0) != "0 requests" || requests(48) != "48 requests" {
		t.Error(requests(1), requests(0), requests(48))
	}
}
