package main

import (
	"os"
	"strings"
	"testing"
)

// TestChurnTable reads captured `go test -bench ShareChurn` output and
// checks the row it makes, and that a site past its share fails it.
func TestChurnTable(t *testing.T) {
	f, err := os.Open("testdata/bench-share.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := churnTable(parseBenchOutput(f))
	if err != nil {
		t.Fatal(err)
	}
	got := table(rows)
	for _, want := range []string{
		"| 7. hostile: a churning site | 24 harvests of a site of 200 pages",
		"with a share of 8.4 MB (`--site-share`): a harvest adds 1.19 MB (the first 1.21 MB, snapshots included); after every sweep the site stored at most 8.37 MB; 17 sweeps deleted its oldest changes;",
		"the database file 10.87 MB at the first of them and 10.96 MB after the last; the newest 6 harvests' changes kept | ≤ the share after each sweep; the file flat from the first cut | pass |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table:\n%s\nlacks:\n%s", got, want)
		}
	}
	over := strings.ReplaceAll(string(mustRead(t, "testdata/bench-share.txt")), "8.366 max-stored-MB", "9.100 max-stored-MB")
	if rows, err = churnTable(parseBenchOutput(strings.NewReader(over))); err != nil || !strings.Contains(table(rows), "| fail |") {
		t.Errorf("a site past its share does not fail: %v\n%s", err, table(rows))
	}
	if _, err := churnTable(nil); err == nil || !strings.Contains(err.Error(), "BenchmarkShareChurn") {
		t.Errorf("error = %v, want one naming the missing benchmark", err)
	}
}
