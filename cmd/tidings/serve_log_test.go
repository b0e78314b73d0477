package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeLogsAFailedHarvestAsSuch: when one collection of a site fails,
// the harvest's log line says so by its level and its error, not at INFO
// with an empty error; a harvest that works logs at INFO with no error.
func TestServeLogsAFailedHarvestAsSuch(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t, "TIDINGS_INTERVAL", "1s", "TIDINGS_LOG_FORMAT", "json")
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	site.Fail("/shrine/changes-current.xml", http.StatusInternalServerError)
	time.Sleep(1100 * time.Millisecond) // due again
	_, logs := serveLogged(t, env)

	var line map[string]any
	for deadline := time.Now().Add(20 * time.Second); line == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no harvest logged in 20 s:\n%s", logs.String())
		}
		for l := range strings.Lines(logs.String()) {
			var rec map[string]any
			if json.Unmarshal([]byte(l), &rec) == nil && rec["msg"] == "harvested site" {
				line = rec
			}
		}
	}
	errText, _ := line["error"].(string)
	if line["level"] != "WARN" || !strings.Contains(errText, "My Shrine & Co: ") || !strings.Contains(errText, "changes-current.xml returned 500") {
		t.Errorf("a failed harvest logged as %v", line)
	}
	if n := strings.Count(logs.String(), "harvest failed"); n != 0 {
		t.Errorf("the failure was logged %d more times:\n%s", n, logs.String())
	}

	// The command line prints the problem in its report instead.
	r := tidings(t, env, "harvest", "--all")
	if !strings.Contains(r.stdout, "changes-current.xml returned 500") || strings.Contains(r.stderr, "harvested site") {
		t.Errorf("harvest --all: stdout\n%s\nstderr\n%s", r.stdout, r.stderr)
	}
}
