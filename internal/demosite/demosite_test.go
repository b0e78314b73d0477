package demosite

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %s", url, err, resp.Status)
	}
	return string(b)
}

// TestSitesChange: each site announces a change its own way, and the page
// changed has a new title and a new last line.
func TestSitesChange(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	ss, err := Start(now)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	rs, sm, pg := ss.Of(ResourceSync), ss.Of(Sitemap), ss.Of(Pages)
	if !strings.Contains(get(t, rs.URL+"/.well-known/resourcesync"), `<rs:ln rel="describes" href="`+rs.URL+`/"/>`) {
		t.Error("the Source Description does not describe the site")
	}
	list := get(t, rs.URL+"/changelist.xml")
	if n := strings.Count(list, `change="created"`); n != len(contents[ResourceSync]) || strings.Contains(list, `change="updated"`) {
		t.Errorf("the first change list:\n%s", list)
	}
	if !strings.Contains(get(t, sm.URL+"/robots.txt"), "Sitemap: "+sm.URL+"/sitemap.xml") {
		t.Error("robots.txt does not name the sitemap")
	}
	if home := get(t, pg.URL+"/"); !strings.Contains(home, `<a href="/frogs.html">Frogs of the pond</a>`) {
		t.Errorf("the watched site's home page:\n%s", home)
	}

	later := now.Add(time.Minute)
	ss.Change(2, later)
	list = get(t, rs.URL+"/changelist.xml")
	if n := strings.Count(list, `datetime="2026-11-20T12:01:00Z"`); n != 2 {
		t.Errorf("%d changes listed at the change's time, want 2:\n%s", n, list)
	}
	if n := strings.Count(get(t, sm.URL+"/sitemap.xml"), "<lastmod>2026-11-20T12:01:00Z</lastmod>"); n != 2 {
		t.Errorf("%d lastmods moved, want 2", n)
	}
	page := get(t, pg.URL+"/frogs.html")
	if !strings.Contains(page, "<title>Frogs of the pond (edit 1)</title>") || strings.Contains(page, "Seen today: two frogs.") ||
		!strings.Contains(page, "(12:01:00)") {
		t.Errorf("the changed page:\n%s", page)
	}
	resp, err := http.Get(pg.URL + "/sitemap.xml")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the watched site answers /sitemap.xml with %d, want 404: it publishes nothing", resp.StatusCode)
	}
	for range maxListed {
		ss.Change(1, later)
	}
	if n := strings.Count(get(t, rs.URL+"/changelist.xml"), "<url>"); n != maxListed {
		t.Errorf("the change list holds %d changes, want at most %d", n, maxListed)
	}
}
