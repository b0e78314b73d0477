package main

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Row is one line of the benchmark table.
type Row struct {
	Scenario string
	Figure   string
	Target   string
	Pass     *bool // nil when the figure has no target
}

const tableHead = "| scenario | figure | target | result |\n| --- | --- | --- | --- |\n"

// table renders rows as the Markdown table of BENCHMARKS.md.
func table(rows []Row) string {
	var b strings.Builder
	b.WriteString(tableHead)
	for _, r := range rows {
		b.WriteString(r.line())
	}
	return b.String()
}

func (r Row) line() string {
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
	return fmt.Sprintf("| %s | %s | %s | %s |\n", r.Scenario, r.Figure, target, res)
}

func check(ok bool) *bool { return &ok }

// partialNote is the line a partial run adds above the table:
// "Scenario 7 again: `command`, date." or "Scenarios 4, 6 again: …".
var partialNote = regexp.MustCompile(`^Scenarios? ([0-9, ]+) again: `)

// mergeBenchmarks puts the rows of a partial run (the scenarios in sel)
// into the BENCHMARKS.md old, in place of those scenarios' rows, keeping
// every other row and the text above the table. A line above the table
// says how and when the scenarios were run again; it replaces an earlier
// such line about no other scenarios.
func mergeBenchmarks(old string, sel scenarios, how string, rows []Row) string {
	head, body, ok := strings.Cut(old, tableHead)
	if !ok {
		return old + "\n" + table(rows)
	}
	var keep []string
	for line := range strings.Lines(strings.TrimSpace(head) + "\n") {
		if m := partialNote.FindStringSubmatch(line); m != nil && subset(numbers(m[1]), sel) {
			continue
		}
		keep = append(keep, line)
	}
	names := make([]string, len(sel))
	for i, n := range sel {
		names[i] = strconv.Itoa(n)
	}
	plural := "s"
	if len(sel) == 1 {
		plural = ""
	}
	head = strings.TrimSpace(strings.Join(keep, "")) + fmt.Sprintf("\n\nScenario%s %s again: %s.\n\n", plural, strings.Join(names, ", "), how)
	for strings.Contains(head, "\n\n\n") {
		head = strings.ReplaceAll(head, "\n\n\n", "\n\n")
	}

	oldRows := map[int][]string{}
	var rest []string // lines after the table
	lines := slices.Collect(strings.Lines(body))
	for i, line := range lines {
		if !strings.HasPrefix(line, "| ") {
			rest = lines[i:]
			break
		}
		n := scenarioOf(strings.TrimPrefix(line, "| "))
		oldRows[n] = append(oldRows[n], line)
	}
	newRows := map[int][]string{}
	for _, r := range rows {
		n := scenarioOf(r.Scenario)
		newRows[n] = append(newRows[n], r.line())
	}
	var b strings.Builder
	b.WriteString(head + tableHead)
	order := slices.Clone(allScenarios)
	for _, n := range append(slices.Collect(maps.Keys(oldRows)), sel...) {
		if !slices.Contains(order, n) {
			order = append(order, n)
		}
	}
	for _, n := range order {
		src := oldRows
		if sel.has(n) {
			src = newRows
		}
		for _, line := range src[n] {
			b.WriteString(line)
		}
	}
	b.WriteString(strings.Join(rest, ""))
	return b.String()
}

// afterTable returns what follows the table of the BENCHMARKS.md old,
// from its first line that is no row, without leading blank lines.
func afterTable(old string) string {
	_, body, ok := strings.Cut(old, tableHead)
	if !ok {
		return ""
	}
	at := 0
	for line := range strings.Lines(body) {
		if !strings.HasPrefix(line, "| ") {
			return strings.TrimLeft(body[at:], "\n")
		}
		at += len(line)
	}
	return ""
}

// scenarioOf reads the number a table row's scenario starts with, or 0.
func scenarioOf(cell string) int {
	end := strings.IndexFunc(cell, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(cell)
	}
	n, _ := strconv.Atoi(cell[:end])
	return n
}

func numbers(list string) scenarios {
	var out scenarios
	for f := range strings.SplitSeq(list, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func subset(a, b scenarios) bool {
	for _, n := range a {
		if !b.has(n) {
			return false
		}
	}
	return true
}
