package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// rollingRows measures scenario 9's rolling re-read (issue 32, item 6):
// the sitemap source's own benchmark harvests a site of 2,000 pages whose
// dates never move daily for three weeks, in its own process, and its
// figures become a row: the pages read again a harvest, their requests,
// and what they cost at the default host delay. Every page is to be read
// within 7 days, and no harvest is to take longer than scenario 9's
// bound for a harvest.
func rollingRows(ctx context.Context, stderr io.Writer) ([]Row, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "RollingReread", "-benchtime", "1x", "./harvest/sitemap/")
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("scenario 9, rolling re-read: go test -bench: %w\n%s", err, out)
	}
	return rollingTable(parseBenchOutput(strings.NewReader(string(out))))
}

func rollingTable(results map[string]benchResult) ([]Row, error) {
	r, ok := results["BenchmarkRollingReread"]
	if !ok {
		return nil, fmt.Errorf("scenario 9: no result for BenchmarkRollingReread")
	}
	gap, delay := r["max-unread-days"], r["delay-s/max-harvest"]
	ok = r["reads/harvest"] > 0 && gap > 0 && gap <= 7 && r["pages-never-reread"] == 0 && delay < anyCycle.Seconds()
	return []Row{{
		Scenario: "9. follow any site: rolling re-read of a site of 2000 pages whose dates never move",
		Figure: fmt.Sprintf("21 daily harvests at the default budget: %.0f pages read again a harvest (at most %.0f), %.0f requests (at most %.0f), %.0f %% answered 304; "+
			"the busiest harvest's host delay %.1f s (requests × %s), each harvest's own work %.2f s; the longest a page went unread %.1f days, %.0f pages never read again (`go test -bench RollingReread ./harvest/sitemap/`)",
			r["reads/harvest"], r["max-reads/harvest"], r["requests/harvest"], r["max-requests/harvest"], r["%304"],
			delay, hostDelay, r["s/harvest"], gap, r["pages-never-reread"]),
		Target: fmt.Sprintf("every page within 7 days, a harvest < %.0f s", anyCycle.Seconds()),
		Pass:   check(ok),
	}}, nil
}
