package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"tidings/internal/fleetsite"
)

// TestBigListSite: the site scenario 1 follows serves its Source
// Description, capability list and change list of n entries, a page at
// each address the list names, and 404 elsewhere.
func TestBigListSite(t *testing.T) {
	var list []byte
	site, err := startSite(func(base string) http.HandlerFunc {
		list = fleetsite.BigChangeList(base, 30, time.Now().UTC())
		return bigListHandler(base, list)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer site.close()
	get := func(path string) (int, string) {
		resp, err := http.Get(site.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/big/changelist.xml")
	if code != 200 || body != string(list) || strings.Count(body, "<url>") != 30 {
		t.Errorf("change list: %d, %d entries", code, strings.Count(body, "<url>"))
	}
	if code, body := get("/.well-known/resourcesync"); code != 200 || !strings.Contains(body, site.base+"/big/capabilitylist.xml") {
		t.Errorf("source description: %d %s", code, body)
	}
	if code, body := get("/big/capabilitylist.xml"); code != 200 || !strings.Contains(body, site.base+"/big/changelist.xml") {
		t.Errorf("capability list: %d %s", code, body)
	}
	if code, body := get("/big/section-007/page-000007.html"); code != 200 || !strings.Contains(body, "<title>/big/section-007/page-000007.html</title>") {
		t.Errorf("a page: %d %s", code, body)
	}
	if code, _ := get("/sitemap.xml"); code != 404 {
		t.Errorf("/sitemap.xml: %d, want 404", code)
	}
	if n := site.requests.Load(); n != 5 {
		t.Errorf("the site counted %d requests, want 5", n)
	}
}
