package main

import "testing"

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
