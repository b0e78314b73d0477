package main

import (
	"os"
	"strings"
	"testing"
)

// TestRetentionTable reads captured `go test -bench` output of scenario
// 10 and checks the rows it makes.
func TestRetentionTable(t *testing.T) {
	f, err := os.Open("testdata/bench-retention.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := retentionTable(parseBenchOutput(f))
	if err != nil {
		t.Fatal(err)
	}
	got := table(rows)
	for _, want := range []string{
		"a 100-page site rewritten whole every day (14 KB of text a page), six harvests each swept after, the default retention (365 days, and each collection's newest 100 changes): the database grows 0.05 MB a harvest from the third on, 1.02 MB after six; a change's diff 179 B (median) | ≤ 1.5 MB a harvest | pass |\n",
		"rewritten whole every day (14 KB of text a page), six harvests each swept after, a tight retention (--keep-changes-for 1d --keep-changes 100): the database grows 0.01 MB a harvest from the third on, 0.86 MB after six;",
		"| 10. retention | a 100-page site of which a third of the text is rewritten every day (14 KB of text a page, one block of ten lines in three), six harvests each swept after, a tight retention (--keep-changes-for 1d --keep-changes 100): the database grows 0.23 MB a harvest from the third on, 2.16 MB after six; a change's diff 13432 B (median) as JSON, stored compressed | ≤ 1.5 MB a harvest | pass |\n",
		"one block of ten lines in three), six harvests each swept after, the default retention (365 days, and each collection's newest 100 changes): the database grows 0.50 MB a harvest",
		"| 10. retention, a page replaced | a 256 KB page of text that compresses little (base64) replaced by another: 196.6 KB stored (its change's diff 181 B, the page's snapshot 197.4 KB in place of the previous one) | ≤ 300 KB | pass |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table:\n%s\nlacks:\n%s", got, want)
		}
	}
	big := strings.ReplaceAll(strings.ReplaceAll(string(mustRead(t, "testdata/bench-retention.txt")), "0.05018 MB/harvest", "2.934 MB/harvest"), "196.6 KB-stored", "733.2 KB-stored")
	rows, err = retentionTable(parseBenchOutput(strings.NewReader(big)))
	if err != nil {
		t.Fatal(err)
	}
	if got := table(rows); strings.Count(got, "| fail |") != 2 {
		t.Errorf("growth and replacement over their targets do not fail:\n%s", got)
	}
	if _, err := retentionTable(parseBenchOutput(strings.NewReader("BenchmarkRetentionDefault-2 1 100 ns/op 1 MB/harvest\n"))); err == nil ||
		!strings.Contains(err.Error(), "BenchmarkRetentionTight") {
		t.Errorf("error = %v, want one naming the missing benchmark", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
