package main

import (
	"os"
	"strings"
	"testing"
)

// TestBigListTable reads captured `go test -bench` output of scenario 1
// and checks the rows it makes, pass and fail alike.
func TestBigListTable(t *testing.T) {
	f, err := os.Open("testdata/bench-biglist.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	results := parseBenchOutput(f)
	if got := results["BenchmarkBigChangeList"]["peak-RSS-MB"]; got != 136.1 {
		t.Errorf("peak RSS = %v, want 136.1", got)
	}
	rows, err := bigListTable(results)
	if err != nil {
		t.Fatal(err)
	}
	want := "| 1. big change list | 50,000 new entries fetched, parsed and stored in 1.11 s | < 0.5 s | fail |\n" +
		"| 1. big change list | peak RSS 136 MB (Go heap 89 MB) | < 150 MB | pass |\n" +
		"| 1. big change list, nothing new | 0.04 s: served again unchanged, without validators | < 0.25 s | pass |\n" +
		"| 1. big change list, nothing new | 0.52 s: served again with one byte changed, so parsed | < 0.25 s | fail |\n"
	if got := table(rows); !strings.HasSuffix(got, want) {
		t.Errorf("table:\n%s\nwant rows:\n%s", got, want)
	}
}

func TestBigListTableMissingResult(t *testing.T) {
	results := parseBenchOutput(strings.NewReader("BenchmarkBigChangeList-2 5 100 ns/op 1 peak-RSS-MB\nPASS\n"))
	if _, err := bigListTable(results); err == nil || !strings.Contains(err.Error(), "NothingNew") {
		t.Errorf("error = %v, want one naming the missing benchmark", err)
	}
}
