package main

import (
	"fmt"
	"strings"
)

// Row is one line of the benchmark table.
type Row struct {
	Scenario string
	Figure   string
	Target   string
	Pass     *bool // nil when the figure has no target
}

// table renders rows as the Markdown table of BENCHMARKS.md.
func table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| scenario | figure | target | result |\n| --- | --- | --- | --- |\n")
	for _, r := range rows {
		res := "—"
		if r.Pass != nil {
			res = "fail"
			if *r.Pass {
				res = "pass"
			}
		}
		target := r.Target
		if target == "" {
			target = "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Scenario, r.Figure, target, res)
	}
	return b.String()
}

func check(ok bool) *bool { return &ok }
