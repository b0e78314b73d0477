package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseSiteLine(t *testing.T) {
	s, err := parseSiteLine("http://127.0.0.1:4000/")
	if err != nil || s != (fleetSite{url: "http://127.0.0.1:4000/", kind: "resourcesync", variant: "-", validators: true}) {
		t.Errorf("bare URL: %+v, %v", s, err)
	}
	s, err = parseSiteLine("http://127.0.0.1:4001/project/ sitemap mkdocs-project no-validators 112")
	if err != nil || s != (fleetSite{url: "http://127.0.0.1:4001/project/", kind: "sitemap", variant: "mkdocs-project", pages: 112}) {
		t.Errorf("sitemap site: %+v, %v", s, err)
	}
	for _, bad := range []string{"", "u sitemap x validators", "u sitemap x maybe 3", "u pages - validators many"} {
		if _, err := parseSiteLine(bad); err == nil {
			t.Errorf("%q was read as a site", bad)
		}
	}
	if o := origin("http://127.0.0.1:4001/project/a/"); o != "http://127.0.0.1:4001" {
		t.Errorf("origin %q", o)
	}
}

// anyFixture is a fleet of a site of each kind, and a sitemap site
// followed by its pages.
func anyFixture() anyResult {
	sites := []fleetSite{
		{url: "http://127.0.0.1:1/", kind: "resourcesync", validators: true},
		{url: "http://127.0.0.1:2/docs/", kind: "sitemap", variant: "mkdocs", validators: true},
		{url: "http://127.0.0.1:3/", kind: "pages", variant: "-"},
		{url: "http://127.0.0.1:4/", kind: "sitemap", variant: "hugo", validators: true},
	}
	feeds := []feed{
		{Site: "http://127.0.0.1:1/", Protocol: "resourcesync"},
		{Site: "http://127.0.0.1:2/", Protocol: "sitemap"},
		{Site: "http://127.0.0.1:3/", Protocol: "pages"},
		{Site: "http://127.0.0.1:4/", Protocol: "pages"},
	}
	return anyResult{
		sites: sites, workers: 256, feeds: feeds,
		follow:         runResult{wall: 30 * time.Second, peak: 100e6},
		followStats:    stats{Requests: 500, Pages: 400, ByStatus: map[string]int{"200": 500}},
		firstUnchanged: runResult{wall: 12 * time.Second, peak: 95e6},
		firstUnchangedStats: stats{Requests: 100, Kinds: map[string]kindStats{
			"sitemap": {Requests: 100, Conditional: 50, NotModified: 50},
		}},
		unchanged: runResult{wall: 10 * time.Second, peak: 90e6},
		unchangedStats: stats{Requests: 330, Kinds: map[string]kindStats{
			"resourcesync":       {Requests: 10, Conditional: 10, NotModified: 10},
			"sitemap":            {Requests: 100, Conditional: 100, NotModified: 95, Sitemaps: 4},
			"pages":              {Requests: 100, Conditional: 90, NotModified: 86, Pages: 99},
			"pages-novalidators": {Requests: 120, Conditional: 0, Pages: 119},
		}},
		cycle: runResult{wall: 119 * time.Second, peak: 120e6},
		cycleStats: stats{Requests: 40, ByStatus: map[string]int{"200": 10, "304": 30}, Kinds: map[string]kindStats{
			"sitemap":            {Requests: 20, Pages: 15, Sitemaps: 5, NotModified: 12},
			"pages":              {Requests: 10, Pages: 10, NotModified: 10},
			"pages-novalidators": {Requests: 10, Pages: 10},
		}},
		revised: []string{"http://127.0.0.1:2/docs/a/", "http://127.0.0.1:2/docs/b/", "http://127.0.0.1:3/c/", "http://127.0.0.1:1/c0/pages/000001.html"},
		found: []foundChange{
			{"sitemap", "http://127.0.0.1:2/docs/a/", "updated"},
			{"sitemap", "http://127.0.0.1:2/docs/a/", "updated"}, // a second change of one page counts once
			{"sitemap", "http://127.0.0.1:2/docs/z/", "updated"}, // its lastmod moved, its text did not
			{"sitemap", "http://127.0.0.1:2/docs/new/", "created"},
			{"resourcesync", "http://127.0.0.1:1/c0/pages/000001.html", "updated"},
		},
	}
}

func TestAnyRows(t *testing.T) {
	r := anyFixture()
	rows := r.rows()
	if len(rows) != 6 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, row := range rows {
		if scenarioOf(row.Scenario) != 9 {
			t.Errorf("row %q is not scenario 9's", row.Scenario)
		}
	}
	want := []string{
		"4 sites in 30.0 s, 256 at once: 1 of 1 resourcesync sites by resourcesync, 1 of 2 sitemap sites by sitemap, 1 of 1 pages sites by pages; 1 by another source (sitemap by pages); 0 without a collection harvested without error; 500 requests (500 × 200; 400 pages); peak RSS 100.0 MB",
		"50.0 % of 100 requests to sitemap and pages sites with validators answered 304, 50.0 % sent conditionally (sitemap 50 of 100, pages 0 of 0; resourcesync 0 of 0); without validators: 0 requests, 0 conditional; 12.0 s, peak RSS 95.0 MB",
		// (95+86) / 200 answered 304; the server without validators apart.
		"90.5 % of 200 requests to sitemap and pages sites with validators answered 304, 95.0 % sent conditionally (sitemap 95 of 100, pages 86 of 100; resourcesync 10 of 10); without validators: 120 requests, 0 conditional; 10.0 s, peak RSS 90.0 MB",
		"4 sites (4 followed) harvested in 119.0 s, 256 at once, default politeness: 4 pages revised; 40 requests (10 × 200, 30 × 304): resourcesync sites 0 (0 pages, 0 × 304), sitemap sites 20 (15 pages, 5 sitemaps, 12 × 304), pages sites 20 (20 pages, 10 × 304); the host delay alone makes it ≥ 0.0 s (requests × 250ms ÷ 256 at once); peak RSS 120.0 MB",
		"5 changes stored: 2 of the 4 revised pages found (resourcesync 1 of 1, sitemap 1 of 2, pages 0 of 1); changes on pages not revised: sitemap 2 (1 created, 1 updated)",
	}
	for k, w := range want {
		if rows[k].Figure != w {
			t.Errorf("row %d:\n got %s\nwant %s", k, rows[k].Figure, w)
		}
	}
	if rows[0].Pass != nil || rows[1].Pass != nil || rows[1].Target != "" || rows[5].Pass != nil {
		t.Error("a row without a target has a result")
	}
	// 2 of 4 found and changes invented: the detection fails, and passes
	// with every page found and none invented.
	if *rows[4].Pass || rows[4].Target != "≥ 99 % found, none on pages not revised" {
		t.Errorf("detection row: target %q, pass %v", rows[4].Target, *rows[4].Pass)
	}
	all := anyFixture()
	all.found = nil
	for _, u := range all.revised {
		all.found = append(all.found, foundChange{"sitemap", u, "updated"})
	}
	if !*all.detectionRow().Pass {
		t.Error("every revised page found, none invented: the detection row fails")
	}
	if !*rows[2].Pass || !*rows[3].Pass {
		t.Errorf("unchanged %v, cycle %v; want both to pass", *rows[2].Pass, *rows[3].Pass)
	}
	if !strings.Contains(rows[5].line(), "| < 0.5 s, < 150 MB | — |") {
		t.Errorf("the 50,000-URL sitemap's row: %s", rows[5].line())
	}

	w := r
	w.workers = 4
	if f := w.cycleRow().Figure; !strings.Contains(f, "≥ 2.5 s (requests × 250ms ÷ 4 at once)") {
		t.Errorf("40 requests 250 ms apart, 4 sites at once: %s", f)
	}

	// Each target fails on its own: fewer 304s, a slower cycle, a cycle
	// that ended in error or was killed.
	r.unchangedStats.Kinds["pages"] = kindStats{Requests: 100, NotModified: 84}
	if *r.rows()[2].Pass {
		t.Error("89.5 % answered 304 passed")
	}
	r.unchangedStats.Kinds = nil
	if *r.rows()[2].Pass {
		t.Error("no request at all passed")
	}
	for _, c := range []runResult{{wall: 121 * time.Second}, {wall: time.Second, exit: 1}, {wall: time.Second, timedOut: true}} {
		r.cycle = c
		if *r.cycleRow().Pass {
			t.Errorf("a cycle of %s, exit %d, timed out %v passed", c.wall, c.exit, c.timedOut)
		}
	}
	r.cycle = runResult{wall: time.Second}
	r.feeds[2].LastError = "the page returned 500"
	if row := r.cycleRow(); *row.Pass || !strings.Contains(row.Figure, "4 sites (3 followed)") {
		t.Errorf("a cycle with a site not followed: %s, pass %v", row.Figure, *row.Pass)
	}
}

// TestAnyFleet drives a real fleetsim of every kind as scenario 9 does:
// reads its sites, counts a conditional request, revises it and lists
// the revised pages.
func TestAnyFleet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "fleetsim")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "../fleetsim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const n = 50
	f, err := startFleet(ctx, bin, 1, n, "--kinds", anyMix, "--collections", "1", "--lists", "2",
		"--entries", strconv.Itoa(anyRSPages), "--pages", strconv.Itoa(anyRSPages), "--recent")
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	kinds := map[string]int{}
	var page string
	for _, s := range f.sites {
		kinds[s.kind]++
		if s.kind == "pages" && s.validators && page == "" {
			page = s.url
		}
	}
	if len(f.urls) != n || kinds["resourcesync"] != 10 || kinds["sitemap"] != 20 || kinds["pages"] != 20 {
		t.Fatalf("%d sites: %v", len(f.urls), kinds)
	}
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ := http.NewRequest("GET", page, nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var st stats
	for deadline := time.Now().Add(5 * time.Second); st.Requests < 2 && time.Now().Before(deadline); {
		if st, err = f.stats(); err != nil {
			t.Fatal(err)
		}
	}
	if ks := st.Kinds["pages"]; ks.Requests != 2 || ks.Conditional != 1 || ks.NotModified != 1 || ks.Pages != 2 {
		t.Errorf("counts %+v", st)
	}
	revised := f.send("revise 0.02")
	var urls []string
	if err := json.Unmarshal([]byte(f.send("revised")), &urls); err != nil {
		t.Fatal(err)
	}
	// 30 to 200 pages a site round to at least one revised page; the
	// ResourceSync sites' 50 to exactly one.
	if revised != "revised "+strconv.Itoa(len(urls)) || len(urls) < n {
		t.Errorf("%q, %d URLs", revised, len(urls))
	}
}

func TestBigSiteRow(t *testing.T) {
	r := bigResult{variant: "wordpress", dates: "its pages' own lastmods", revised: 100, found: 100,
		run: runResult{wall: 25 * time.Second, peak: 50e6}, st: stats{Requests: 102, Pages: 100}}
	row := r.row()
	if !*row.Pass || row.Scenario != "9. follow any site: a site of 2000 pages, 100 changed (its pages' own lastmods)" ||
		!strings.Contains(row.Figure, "100 of 100 revised pages found, 0 changes on pages not revised; 102 requests (0 × 304, 100 pages) in 25.0 s, of which the host delay alone is 25.5 s") {
		t.Errorf("row %+v", row)
	}
	for name, change := range map[string]func(*bigResult){
		"47 found":        func(r *bigResult) { r.found = 47 },
		"one invented":    func(r *bigResult) { r.spurious = 1 },
		"250 s":           func(r *bigResult) { r.run.wall = 250 * time.Second },
		"exit 1":          func(r *bigResult) { r.run.exit = 1 },
		"nothing revised": func(r *bigResult) { r.revised, r.found = 0, 0 },
	} {
		bad := r
		change(&bad)
		if *bad.row().Pass {
			t.Errorf("%s: passed", name)
		}
	}
}
