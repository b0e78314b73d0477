package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// defaultWorkers is tidings' --workers in scenarios 2 and 3. Every fleet
// site is a host of its own, so harvests run side by side, each spacing its
// requests by the host delay: a site's first harvest is 14 requests, 3.25 s
// of politeness, so 2,000 sites in a minute need over 110 harvests at once.
// Measured on 2 cores shared with the fleet, scenario 2 took 105.6 s with
// 64 workers, 54.2 s with 128, 35.2 s with 256 and 30.0 s with 512: past
// 256 the cores, not the delays, set the pace.
const defaultWorkers = 256

// fleetCycles runs scenario 2 (follow every site: the first harvest) and
// scenario 3 (harvest the unchanged fleet again).
func (h *harness) fleetCycles(ctx context.Context) ([]Row, error) {
	urls := h.fleet.urls
	env := h.env(filepath.Join(h.dir, "tidings.db"))
	fmt.Fprintf(h.stderr, "scenario 2: following %d sites, %d at once\n", len(urls), h.workers)
	h.fleet.send("reset")
	start := time.Now()
	followed, cols := h.followAll(ctx, env, urls)
	cycle1 := time.Since(start)
	s2, err := h.fleet.stats()
	if err != nil {
		return nil, err
	}
	failed := len(urls) - followed

	fmt.Fprintln(h.stderr, "scenario 3: harvesting the unchanged fleet")
	h.fleet.send("reset")
	start = time.Now()
	cmd := exec.CommandContext(ctx, h.bin, "harvest", "--all", "--workers", fmt.Sprint(h.workers))
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("harvest --all: %w\n%s", err, lastLines(string(out), 20))
	}
	cycle2 := time.Since(start)
	s3, err := h.fleet.stats()
	if err != nil {
		return nil, err
	}

	n := float64(len(urls))
	pct304 := 100 * float64(s3.NotModified) / float64(max(s3.Requests, 1))
	pctBytes := 100 * float64(s3.Bytes) / float64(max(s2.Bytes, 1))
	return []Row{
		{"2. fleet cycle", fmt.Sprintf("%d sites followed in %.1f s (%d failed; %d collections)", len(urls), cycle1.Seconds(), failed, cols), "< 60 s", check(cycle1 < time.Minute && failed == 0)},
		{"2. fleet cycle", fmt.Sprintf("%.1f sites/s, %.1f documents/s (%d requests: %s; %.1f MB)",
			n/cycle1.Seconds(), float64(s2.Requests)/cycle1.Seconds(), s2.Requests, statuses(s2), float64(s2.Bytes)/1e6), "", nil},
		{"3. unchanged cycle", fmt.Sprintf("%.1f %% of %d requests answered 304 (%s; %.1f s)", pct304, s3.Requests, statuses(s3), cycle2.Seconds()), "≥ 95 %", check(pct304 >= 95)},
		{"3. unchanged cycle", fmt.Sprintf("%.2f %% of the first cycle's bytes (%d bytes)", pctBytes, s3.Bytes), "< 5 %", check(pctBytes < 5)},
	}, nil
}

// followedSites counts the sites with a collection harvested without
// error, and all collections, from `tidings feeds --json`.
func followedSites(ctx context.Context, bin string, env []string) (sites, cols int, err error) {
	cmd := exec.CommandContext(ctx, bin, "feeds", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("feeds --json: %w", err)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var f struct {
			Site      string `json:"site"`
			LastError string `json:"last_error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return 0, 0, fmt.Errorf("feeds --json: %w", err)
		}
		cols++
		if f.LastError == "" {
			seen[f.Site] = true
		}
	}
	return len(seen), cols, sc.Err()
}

// statuses says how many answers had each status: "7000 × 304, 2 × 404".
func statuses(s stats) string {
	codes := make([]string, 0, len(s.ByStatus))
	for c := range s.ByStatus {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d × %s", s.ByStatus[c], c)
	}
	return strings.Join(parts, ", ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
