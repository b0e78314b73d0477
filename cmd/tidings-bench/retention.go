package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// retentionRows runs scenario 10, the worker package's retention
// benchmarks (a site whose pages are rewritten whole, or a third of them,
// every day, harvested and swept six times; a 256 KB page replaced), in
// their own process, and
// turns their figures into table rows.
func retentionRows(ctx context.Context, stderr io.Writer) ([]Row, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "Retention", "-benchtime", "1x", "./worker/")
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("scenario 10: go test -bench: %w\n%s", err, out)
	}
	return retentionTable(parseBenchOutput(strings.NewReader(string(out))))
}

// retentionTable holds scenario 10's figures against issue 25's targets:
// at most 1.5 MB a harvest from the third on, and a 256 KB page replaced
// by another storing at most 300 KB.
func retentionTable(results map[string]benchResult) ([]Row, error) {
	var rows []Row
	const (
		whole = "a 100-page site rewritten whole every day (14 KB of text a page)"
		part  = "a 100-page site of which a third of the text is rewritten every day (14 KB of text a page, one block of ten lines in three)"
		dflt  = "the default retention (365 days, and each collection's newest 100 changes)"
		tight = "a tight retention (--keep-changes-for 1d --keep-changes 100)"
	)
	for _, v := range []struct{ name, site, what, diff string }{
		{"BenchmarkRetentionDefault", whole, dflt, ""},
		{"BenchmarkRetentionTight", whole, tight, ""},
		{"BenchmarkRetentionPartDefault", part, dflt, " as JSON, stored compressed"},
		{"BenchmarkRetentionPartTight", part, tight, " as JSON, stored compressed"},
	} {
		res, ok := results[v.name]
		if !ok {
			return nil, fmt.Errorf("scenario 10: no result for %s", v.name)
		}
		growth := res["MB/harvest"]
		rows = append(rows, Row{"10. retention",
			fmt.Sprintf("%s, six harvests each swept after, %s: the database grows %.2f MB a harvest from the third on, %.2f MB after six; a change's diff %.0f B (median)%s",
				v.site, v.what, growth, res["MB"], res["diff-B/change"], v.diff),
			"≤ 1.5 MB a harvest", check(growth > 0 && growth <= 1.5)})
	}
	res, ok := results["BenchmarkRetentionReplacedPage"]
	if !ok {
		return nil, fmt.Errorf("scenario 10: no result for BenchmarkRetentionReplacedPage")
	}
	stored := res["KB-stored"]
	rows = append(rows, Row{"10. retention, a page replaced",
		fmt.Sprintf("a 256 KB page of text that compresses little (base64) replaced by another: %.1f KB stored (its change's diff %.0f B, the page's snapshot %.1f KB in place of the previous one)",
			stored, res["diff-B"], res["snapshot-KB"]),
		"≤ 300 KB", check(stored > 0 && stored <= 300)})
	return rows, nil
}
