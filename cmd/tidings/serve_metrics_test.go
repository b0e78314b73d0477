package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tidings/db"
)

// metricNames are the families /metrics must always list.
var metricNames = []string{
	"tidings_site_harvests_total", "tidings_harvest_runs_total", "tidings_documents_fetched_total",
	"tidings_documents_not_modified_total", "tidings_fetched_bytes_total", "tidings_fetch_responses_total",
	"tidings_harvest_duration_seconds", "tidings_changes_recorded_total", "tidings_feed_requests_total",
	"tidings_sites", "tidings_sites_due", "tidings_sites_overdue",
}

// TestServeHealthMetricsBackupAndSIGTERM runs the real binary as a
// self-hoster would: serve on a loopback port with its scheduler, JSON
// logs and a metrics token; /healthz and /metrics answer, the metrics move
// when serve harvests a due site and serves its feed, a backup taken while
// it serves is sound and complete, and SIGTERM ends it cleanly.
func TestServeHealthMetricsBackupAndSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	bin := buildTidings(t)
	site := newSite(t)
	addr := freeAddr(t)
	base := "http://" + addr + "/"
	dbPath := filepath.Join(t.TempDir(), "tidings.db")
	env := cleanEnv("TIDINGS_DB="+dbPath, "TIDINGS_ALLOW_PRIVATE_ADDRESSES=1", "TIDINGS_ADDR="+addr,
		"TIDINGS_LOG_FORMAT=json", "TIDINGS_METRICS_TOKEN=let-me-see")
	tidingsCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tidings %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// Followed with a tiny interval, the site is due when serve starts;
	// slowed down, its harvest by serve ends well after the first scrape.
	tidingsCmd("follow", "--interval", "1ms", site.URL)
	site.SetDelay(300 * time.Millisecond)
	// A change list changed since the follow: serve's harvest fetches it
	// anew (the rest answers 304).
	const current = "/shrine/changes-current.xml"
	site.Set(current, site.Get(current)+"\n")

	srv := startServe(t, bin, env, base, "--interval", "24h")

	before := scrapeMetrics(t, base, "let-me-see")
	if before[`tidings_site_harvests_total{outcome="ok"}`] != 0 || before["tidings_sites_due"] != 1 {
		t.Fatalf("before serve's first harvest ended: %v harvests, %v sites due; want 0 and 1 (was the test process stalled for seconds?)",
			before[`tidings_site_harvests_total{outcome="ok"}`], before["tidings_sites_due"])
	}
	body, _ := get(t, base+"healthz")
	if body != "database: ok\nscheduler: ok\n" {
		t.Errorf("/healthz said %q", body)
	}
	for _, auth := range []string{"", "Bearer wrong"} {
		if code := metricsStatus(t, base, auth); code != http.StatusUnauthorized {
			t.Errorf("/metrics with Authorization %q: %d, want 401", auth, code)
		}
	}

	after := before
	deadline := time.Now().Add(60 * time.Second)
	// The counters move one after the other as the harvest ends: wait for
	// the last one, the duration observed once the report is made.
	for after[`tidings_site_harvests_total{outcome="ok"}`] < 1 || after[`tidings_harvest_duration_seconds_count`] <= before[`tidings_harvest_duration_seconds_count`] {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not harvest the due site within 60 s\nstderr:\n%s", srv.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
		after = scrapeMetrics(t, base, "let-me-see")
	}
	site.SetDelay(0)
	for _, k := range []string{
		`tidings_harvest_runs_total{outcome="ok",protocol="resourcesync"}`, `tidings_documents_fetched_total{protocol="discovery"}`,
		`tidings_documents_fetched_total{protocol="resourcesync"}`, `tidings_fetched_bytes_total`, `tidings_harvest_duration_seconds_count`,
	} {
		if after[k] <= before[k] {
			t.Errorf("%s did not move with the harvest: %v, then %v", k, before[k], after[k])
		}
	}
	// /metrics reads the due sites from the database before it gathers the
	// harvest counters, so a harvest ending between the two shows counted
	// and still due in the same scrape: a later scrape must find it not due.
	for due := time.Now().Add(5 * time.Second); after["tidings_sites_due"] != 0 && time.Now().Before(due); {
		time.Sleep(100 * time.Millisecond)
		after = scrapeMetrics(t, base, "let-me-see")
	}
	if after["tidings_sites_due"] != 0 || after["tidings_sites"] != 1 {
		t.Errorf("after the harvest: %v sites, %v due; want 1 and 0", after["tidings_sites"], after["tidings_sites_due"])
	}
	if d := after["tidings_harvest_duration_seconds_sum"]; d < 0.3 {
		t.Errorf("the harvest took %v s by the histogram, less than one slowed request", d)
	}

	// A feed served, then served again as 304 to a reader with its ETag.
	feed := base + public(t, dbPath, "feeds/1.atom")
	resp, err := http.Get(feed)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, feed, nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	again, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if resp.StatusCode != http.StatusOK || again.StatusCode != http.StatusNotModified {
		t.Errorf("feed answered %d, then %d; want 200, 304", resp.StatusCode, again.StatusCode)
	}
	feeds := scrapeMetrics(t, base, "let-me-see")
	for _, code := range []string{"200", "304"} {
		k := `tidings_feed_requests_total{code="` + code + `",kind="collection"}`
		if feeds[k] != after[k]+1 {
			t.Errorf("%s: %v, then %v after one such request", k, after[k], feeds[k])
		}
	}

	// A backup while serve runs is sound and holds every row.
	copyPath := filepath.Join(t.TempDir(), "backup.db")
	if out := tidingsCmd("backup", copyPath); !strings.Contains(out, "Backed up") {
		t.Errorf("backup said %q", out)
	}
	if _, err := db.Check(t.Context(), copyPath); err != nil {
		t.Errorf("the backup does not check out: %v", err)
	}
	if got, want := counts(t, copyPath), counts(t, dbPath); !equalCounts(got, want) || want["changes"] == 0 {
		t.Errorf("backup rows %v, live database %v", got, want)
	}

	srv.stop(t, syscall.SIGTERM)
	checkHarvestLog(t, srv.stderr.String())
}

// checkHarvestLog checks that serve's JSON log has one line per harvest
// run with what an operator needs, and no error.
func checkHarvestLog(t *testing.T, logs string) {
	t.Helper()
	harvested := 0
	for l := range strings.Lines(logs) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Errorf("log line is not JSON: %v\n%s", err, l)
			continue
		}
		if rec["level"] == "ERROR" {
			t.Errorf("serve logged an error: %s", l)
		}
		if rec["msg"] != "harvested site" {
			continue
		}
		harvested++
		for _, k := range []string{"site", "duration", "documents", "changes", "warnings"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("harvest log line lacks %q: %s", k, l)
			}
		}
		if n, _ := rec["documents"].(float64); n < 1 {
			t.Errorf("harvest log line counts no document: %s", l)
		}
	}
	if harvested != 1 {
		t.Errorf("%d harvest log lines, want 1:\n%s", harvested, logs)
	}
}

// metricsStatus GETs /metrics with an Authorization header and returns the
// status.
func metricsStatus(t *testing.T, base, auth string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"metrics", nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// scrapeMetrics GETs /metrics with the token, checks every tidings family
// is listed, and returns the samples by name and labels as written.
func scrapeMetrics(t *testing.T, base, token string) map[string]float64 {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %s, %s\n%s", resp.Status, resp.Header.Get("Content-Type"), buf.String())
	}
	text := buf.String()
	for _, name := range metricNames {
		if !strings.Contains(text, "# TYPE "+name+" ") {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	samples := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("/metrics: bad sample line %q", line)
		}
		samples[line[:i]] = v
	}
	return samples
}
