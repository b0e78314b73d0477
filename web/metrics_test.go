package web

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"tidings/fetch"
	"tidings/harvest"
	"tidings/metrics"
)

// scrape GETs /metrics and returns each sample by its name and labels as
// written ("tidings_feed_requests_total{code=\"200\",kind=\"collection\"}").
func scrape(t *testing.T, h http.Handler, auth string) (int, map[string]float64) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	samples := map[string]float64{}
	if rec.Code != http.StatusOK {
		return rec.Code, samples
	}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad sample line %q", line)
		}
		samples[line[:i]] = v
	}
	return rec.Code, samples
}

// TestMetricsCountHarvestsFetchesAndFeeds harvests the fixture site twice
// through a client and harvester wired to the metrics, serves its feed
// three ways, and reads the counters back from /metrics.
func TestMetricsCountHarvestsFetchesAndFeeds(t *testing.T) {
	f := newFixture(t, nil)
	m := metrics.New()
	client := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-test", OnResponse: m.OnResponse})
	h := harvest.New(client, f.store, harvest.Options{AfterHarvest: m.AfterHarvest})
	site, err := f.store.SiteByURL(t.Context(), f.site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	// A change list changed since the follow: fetched anew, among 304s.
	const current = "/shrine/changes-current.xml"
	f.site.Set(current, f.site.Get(current)+"\n")
	for range 2 {
		if _, err := h.HarvestSite(t.Context(), site); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(f.store, Options{BaseURL: testBase, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	first := serve(t, s.Handler(), public(t, f.store, "/feeds/1.atom"))
	req := httptest.NewRequest(http.MethodGet, public(t, f.store, "/feeds/1.atom"), nil)
	req.Header.Set("If-None-Match", first.Header().Get("ETag"))
	again := httptest.NewRecorder()
	s.Handler().ServeHTTP(again, req)
	if first.Code != http.StatusOK || again.Code != http.StatusNotModified {
		t.Fatalf("feed answered %d, then %d to a conditional request", first.Code, again.Code)
	}
	serve(t, s.Handler(), "/feeds/999.atom")
	serve(t, s.Handler(), public(t, f.store, "/sites/1.rss"))

	code, got := scrape(t, s.Handler(), "")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", code)
	}
	exact := map[string]float64{
		`tidings_site_harvests_total{outcome="ok"}`:                        2,
		`tidings_harvest_runs_total{outcome="ok",protocol="resourcesync"}`: 4,
		`tidings_harvest_duration_seconds_count`:                           2,
		`tidings_feed_requests_total{code="200",kind="collection"}`:        1,
		`tidings_feed_requests_total{code="304",kind="collection"}`:        1,
		`tidings_feed_requests_total{code="404",kind="collection"}`:        1,
		`tidings_feed_requests_total{code="200",kind="site"}`:              1,
		`tidings_sites`:         1,
		`tidings_sites_due`:     0,
		`tidings_sites_overdue`: 0,
	}
	for k, want := range exact {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	positive := []string{
		`tidings_documents_fetched_total{protocol="discovery"}`,
		`tidings_documents_fetched_total{protocol="resourcesync"}`,
		`tidings_fetched_bytes_total`,
		`tidings_fetch_responses_total{code="200"}`,
		`go_goroutines`,
	}
	for _, k := range positive {
		if got[k] <= 0 {
			t.Errorf("%s = %v, want more than 0", k, got[k])
		}
	}
	// The fixture site answers the second harvest's conditional requests
	// with 304, the same ones the client counts.
	nm := got[`tidings_documents_not_modified_total{protocol="resourcesync"}`] + got[`tidings_documents_not_modified_total{protocol="discovery"}`]
	if nm <= 0 || nm != got[`tidings_fetch_responses_total{code="304"}`] {
		t.Errorf("not modified: %v documents, %v 304 answers; want the same, more than 0", nm, got[`tidings_fetch_responses_total{code="304"}`])
	}
}

func TestMetricsToken(t *testing.T) {
	f := newFixture(t, nil)
	s, err := New(f.store, Options{BaseURL: testBase, Metrics: metrics.New(), MetricsToken: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		auth string
		code int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Basic s3cret", http.StatusUnauthorized},
		{"Bearer s3cret", http.StatusOK},
		{"bearer s3cret", http.StatusOK},
	} {
		if code, got := scrape(t, s.Handler(), tt.auth); code != tt.code || (code == http.StatusOK) != (got["tidings_sites"] == 1) {
			t.Errorf("Authorization %q: %d with %d samples, want %d", tt.auth, code, len(got), tt.code)
		}
	}
	rec := serve(t, s.Handler(), "/metrics")
	if h := rec.Header().Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") {
		t.Errorf("401 without WWW-Authenticate: Bearer (%q)", h)
	}
	// Without Metrics there is no /metrics at all.
	plain, err := New(f.store, Options{BaseURL: testBase})
	if err != nil {
		t.Fatal(err)
	}
	if rec := serve(t, plain.Handler(), "/metrics"); rec.Code != http.StatusNotFound {
		t.Errorf("GET /metrics without metrics: %d, want 404", rec.Code)
	}
}

func TestMetricsScheduleGauges(t *testing.T) {
	f := newFixture(t, nil)
	s, err := New(f.store, Options{BaseURL: testBase, Metrics: metrics.New()})
	if err != nil {
		t.Fatal(err)
	}
	site, err := f.store.SiteByURL(t.Context(), f.site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		next         time.Duration
		due, overdue float64
	}{
		{time.Hour, 0, 0},
		{-time.Minute, 1, 0},
		{-2 * time.Hour, 1, 1},
	} {
		if err := f.store.SetNextHarvest(t.Context(), site.ID, time.Now().Add(tt.next)); err != nil {
			t.Fatal(err)
		}
		_, got := scrape(t, s.Handler(), "")
		if got["tidings_sites_due"] != tt.due || got["tidings_sites_overdue"] != tt.overdue {
			t.Errorf("next harvest in %v: due %v, overdue %v; want %v, %v", tt.next, got["tidings_sites_due"], got["tidings_sites_overdue"], tt.due, tt.overdue)
		}
	}
}
