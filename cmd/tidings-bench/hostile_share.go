package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// churnRows runs scenario 7's churning site, the worker package's
// BenchmarkShareChurn (a site of 200 pages that change whole at every
// harvest, harvested and swept again and again within a small share),
// in its own process, and turns its figures into a table row.
func churnRows(ctx context.Context, stderr io.Writer) ([]Row, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "^BenchmarkShareChurn$", "-benchtime", "1x", "./worker/")
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("scenario 7: go test -bench ShareChurn: %w\n%s", err, out)
	}
	return churnTable(parseBenchOutput(strings.NewReader(string(out))))
}

// churnTable holds the churning site's figures against issue 38's
// target: after every sweep the site stores at most its share, and the
// database file, its free pages reused, grows no more once the share
// first prunes (10 % of slack for the pages' own fill).
func churnTable(results map[string]benchResult) ([]Row, error) {
	res, ok := results["BenchmarkShareChurn"]
	if !ok {
		return nil, fmt.Errorf("scenario 7: no result for BenchmarkShareChurn")
	}
	share, most := res["share-MB"], res["max-stored-MB"]
	atCut, file := res["file-MB-first-cut"], res["file-MB"]
	harvests := res["harvests"]
	figure := fmt.Sprintf("%.0f harvests of a site of 200 pages that change whole each time (text that compresses little), each swept after as serve's scheduler does, "+
		"with a share of %.1f MB (`--site-share`): a harvest adds %.2f MB (the first %.2f MB, snapshots included); "+
		"after every sweep the site stored at most %.2f MB; %.0f sweeps deleted its oldest changes; "+
		"the database file %.2f MB at the first of them and %.2f MB after the last; the newest %.0f harvests' changes kept",
		harvests, share, res["MB/harvest"], res["MB-first"], most, res["cuts"], atCut, file, res["harvests-kept"])
	ok = share > 0 && most > 0 && most <= share && res["cuts"] > 0 && file <= 1.1*atCut
	return []Row{{"7. hostile: a churning site", figure, "≤ the share after each sweep; the file flat from the first cut", check(ok)}}, nil
}
