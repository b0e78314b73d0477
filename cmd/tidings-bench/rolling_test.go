package main

import (
	"strings"
	"testing"
)

func TestRollingTable(t *testing.T) {
	const spread = "BenchmarkRollingReread-2   	       1	5970391411 ns/op	       100.0 %304	        71.75 delay-s/max-harvest	       286.0 max-reads/harvest	       287.0 max-requests/harvest	         7.000 max-unread-days	         0 pages-never-reread	       286.0 reads/harvest	       287.0 requests/harvest	         0.2843 s/harvest\n"
	rows, err := rollingTable(parseBenchOutput(strings.NewReader(spread)))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Pass == nil || !*rows[0].Pass {
		t.Fatalf("rows %+v, want one that passes", rows)
	}
	for _, want := range []string{"286 pages read again a harvest (at most 286)", "71.8 s", "7.0 days", "0 pages never read again"} {
		if !strings.Contains(rows[0].Figure, want) {
			t.Errorf("figure %q lacks %q", rows[0].Figure, want)
		}
	}
	// All pages due on one day: the busiest harvest's delay is past the
	// bound of a harvest.
	const wave = "BenchmarkRollingReread-2 1 6040443346 ns/op 100.0 %304 250.2 delay-s/max-harvest 1000 max-reads/harvest 1001 max-requests/harvest 7.000 max-unread-days 0 pages-never-reread 285.7 reads/harvest 286.7 requests/harvest 0.2876 s/harvest\n"
	rows, err = rollingTable(parseBenchOutput(strings.NewReader(wave)))
	if err != nil || *rows[0].Pass {
		t.Errorf("a harvest of 1,000 pages at once passed: %+v, %v", rows, err)
	}
	if _, err := rollingTable(parseBenchOutput(strings.NewReader("PASS\n"))); err == nil {
		t.Error("no benchmark line gave no error")
	}
}
