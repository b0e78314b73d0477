package main

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	got := table([]Row{
		{Scenario: "2. fleet cycle", Figure: "41.0 s", Target: "< 60 s", Pass: check(true)},
		{Scenario: "2. fleet cycle", Figure: "48.8 sites/s"},
		{Scenario: "3. unchanged cycle", Figure: "90.0 % 304", Target: "≥ 95 %", Pass: check(false)},
	})
	want := "| scenario | figure | target | result |\n| --- | --- | --- | --- |\n" +
		"| 2. fleet cycle | 41.0 s | < 60 s | pass |\n" +
		"| 2. fleet cycle | 48.8 sites/s | — | — |\n" +
		"| 3. unchanged cycle | 90.0 % 304 | ≥ 95 % | fail |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestMergeBenchmarks(t *testing.T) {
	old := "# Benchmarks\n\n`go run ./cmd/tidings-bench`, 2026-11-22, on 2 CPU cores.\n\n" + tableHead +
		"| 1. big change list | 0.66 s | < 0.5 s | fail |\n" +
		"| 2. fleet cycle | 30.5 s | < 60 s | pass |\n" +
		"| 6. memory | 28.4 MB RSS | < 60 MB | pass |\n" +
		"| 7. hostile: old | follow: 1 GB | < 300 MB | fail |\n" +
		"| 7. hostile: old | serve: 1 GB | < 300 MB | fail |\n"
	rows := []Row{
		{"7. hostile: a 45 MB `<loc>`", "follow: 90 MB", "< 300 MB", check(true)},
		{"7. hostile: a 45 MB `<loc>`", "serve: 3 GB", "< 300 MB", check(false)},
	}
	got := mergeBenchmarks(old, scenarios{7}, "`go run ./cmd/tidings-bench --only 7`, 2026-11-23", rows)
	want := "# Benchmarks\n\n`go run ./cmd/tidings-bench`, 2026-11-22, on 2 CPU cores.\n\n" +
		"Scenario 7 again: `go run ./cmd/tidings-bench --only 7`, 2026-11-23.\n\n" + tableHead +
		"| 1. big change list | 0.66 s | < 0.5 s | fail |\n" +
		"| 2. fleet cycle | 30.5 s | < 60 s | pass |\n" +
		"| 6. memory | 28.4 MB RSS | < 60 MB | pass |\n" +
		"| 7. hostile: a 45 MB `<loc>` | follow: 90 MB | < 300 MB | pass |\n" +
		"| 7. hostile: a 45 MB `<loc>` | serve: 3 GB | < 300 MB | fail |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Run again, and for another scenario: each note is replaced by its
	// own scenarios' next run only, and the rows go in scenario order.
	again := mergeBenchmarks(got, scenarios{7}, "`go run ./cmd/tidings-bench --only 7`, 2026-11-24", rows)
	if strings.Contains(again, "2026-11-23") || strings.Count(again, "again:") != 1 {
		t.Errorf("a second run of 7 kept the first one's note:\n%s", again)
	}
	both := mergeBenchmarks(again, scenarios{1, 6}, "`go run ./cmd/tidings-bench --only 1,6`, 2026-11-25",
		[]Row{{"1. big change list", "0.4 s", "< 0.5 s", check(true)}, {"6. memory", "30 MB RSS", "< 60 MB", check(true)}})
	if !strings.Contains(both, "Scenario 7 again: `go run ./cmd/tidings-bench --only 7`, 2026-11-24.\n\nScenarios 1, 6 again:") {
		t.Errorf("notes:\n%s", both)
	}
	_, body, _ := strings.Cut(both, tableHead)
	wantBody := "| 1. big change list | 0.4 s | < 0.5 s | pass |\n" +
		"| 2. fleet cycle | 30.5 s | < 60 s | pass |\n" +
		"| 6. memory | 30 MB RSS | < 60 MB | pass |\n" +
		"| 7. hostile: a 45 MB `<loc>` | follow: 90 MB | < 300 MB | pass |\n" +
		"| 7. hostile: a 45 MB `<loc>` | serve: 3 GB | < 300 MB | fail |\n"
	if body != wantBody {
		t.Errorf("rows:\n%s\nwant\n%s", body, wantBody)
	}
}

func TestScenarioOf(t *testing.T) {
	for cell, want := range map[string]int{"7. hostile": 7, "12 x": 12, "x": 0, "3": 3} {
		if got := scenarioOf(cell); got != want {
			t.Errorf("scenarioOf(%q) = %d, want %d", cell, got, want)
		}
	}
}

func TestAfterTable(t *testing.T) {
	section := "## Plain sitemaps (`go test -bench`)\n\nHow.\n\n| benchmark | figure | target | result |\n| --- | --- | --- | --- |\n| 50,000-URL sitemap | 0.4 s | < 0.5 s | pass |\n"
	old := "# Benchmarks\n\nrun.\n\n" + tableHead + "| 1. big change list | 0.66 s | < 0.5 s | fail |\n| 2. fleet cycle | 30.5 s | < 60 s | pass |\n\n" + section
	if got := afterTable(old); got != section {
		t.Errorf("got\n%q\nwant\n%q", got, section)
	}
	for _, none := range []string{"# Benchmarks\n\n" + tableHead + "| 1. x | y | z | pass |\n", "no table\n"} {
		if got := afterTable(none); got != "" {
			t.Errorf("afterTable(%q) = %q", none, got)
		}
	}
}
