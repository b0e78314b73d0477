package metrics

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
)

// scrape reads m's handler and returns each sample by its name and labels
// as written ("tidings_feed_requests_total{code=\"200\",kind=\"site\"}").
func scrape(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: %d", rec.Code)
	}
	samples := map[string]float64{}
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
	return samples
}

func TestMetricsOutcomes(t *testing.T) {
	m := New()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	col := func(protocol, errMsg string, docs, changes int) harvest.CollectionReport {
		return harvest.CollectionReport{Collection: db.Collection{Protocol: protocol},
			Run: db.Run{Documents: docs, Changes: changes, Error: errMsg, FinishedAt: start.Add(3 * time.Second)}}
	}
	for _, rep := range []*harvest.SiteReport{
		{Run: db.Run{StartedAt: start, FinishedAt: start}, Collections: []harvest.CollectionReport{col("arc", "", 2, 5), col("scp", "broken", 1, 0)}},
		{Run: db.Run{StartedAt: start, FinishedAt: start.Add(time.Second), Error: "gone"}},
		{Run: db.Run{StartedAt: start, FinishedAt: start}, Collections: []harvest.CollectionReport{col("scp", "broken", 1, 0)}},
		{Run: db.Run{StartedAt: start, FinishedAt: start, Error: "no description"}, Collections: []harvest.CollectionReport{col("arc", "", 1, 1)}},
	} {
		m.AfterHarvest(t.Context(), rep)
	}
	got := scrape(t, m)
	for k, want := range map[string]float64{
		`tidings_site_harvests_total{outcome="partial"}`:                2,
		`tidings_site_harvests_total{outcome="error"}`:                  2,
		`tidings_harvest_runs_total{outcome="ok",protocol="arc"}`:       2,
		`tidings_harvest_runs_total{outcome="error",protocol="scp"}`:    2,
		`tidings_changes_recorded_total{protocol="arc"}`:                6,
		`tidings_documents_fetched_total{protocol="scp"}`:               2,
		`tidings_harvest_duration_seconds_count`:                        4,
		`tidings_harvest_duration_seconds_sum`:                          10,
		`tidings_harvest_duration_seconds_bucket{le="2.5"}`:             1,
		`tidings_harvest_duration_seconds_bucket{le="5"}`:               4,
		`tidings_site_harvests_total{outcome="ok"}`:                     0,
		`tidings_harvest_runs_total{outcome="ok",protocol="discovery"}`: 0,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
}

// TestMetricsFeedsAndSchedule: every kind of feed is listed at 0 from the
// start, answers are counted by kind and code, and the schedule gauges
// hold what was last set.
func TestMetricsFeedsAndSchedule(t *testing.T) {
	m := New()
	got := scrape(t, m)
	for _, kind := range []string{FeedCollection, FeedSite, FeedUser} {
		for _, code := range []string{"200", "304"} {
			k := `tidings_feed_requests_total{code="` + code + `",kind="` + kind + `"}`
			if v, ok := got[k]; !ok || v != 0 {
				t.Errorf("before any request %s = %v (listed: %v), want 0", k, v, ok)
			}
		}
	}
	m.FeedAnswered(FeedSite, http.StatusOK)
	m.FeedAnswered(FeedSite, http.StatusOK)
	m.FeedAnswered(FeedUser, http.StatusNotFound)
	m.SetSchedule(db.Schedule{Sites: 5, Due: 2, Overdue: 1})
	got = scrape(t, m)
	for k, want := range map[string]float64{
		`tidings_feed_requests_total{code="200",kind="site"}`: 2,
		`tidings_feed_requests_total{code="404",kind="user"}`: 1,
		`tidings_feed_requests_total{code="200",kind="user"}`: 0,
		`tidings_sites`:         5,
		`tidings_sites_due`:     2,
		`tidings_sites_overdue`: 1,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
}
