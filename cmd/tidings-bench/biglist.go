package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// bigListRows runs scenario 1, the harvest package's big change list
// benchmarks, in their own process (so that their peak RSS is their own),
// and turns their figures into table rows.
// With a PostgreSQL server (postgres, the URL of a database from which
// the user may create others), the benchmarks run again on it, each run
// in a database of its own, for its figure (issue 26 asks for it beside
// SQLite's).
func bigListRows(ctx context.Context, runs int, postgres string, stderr io.Writer) ([]Row, error) {
	rows, err := bigListRun(ctx, runs, nil, "", stderr)
	if err != nil || postgres == "" {
		return rows, err
	}
	more, err := bigListRun(ctx, runs, []string{"TIDINGS_TEST_ENGINE=postgres", "TIDINGS_TEST_POSTGRES=" + postgres}, " (PostgreSQL)", stderr)
	return append(rows, more...), err
}

func bigListRun(ctx context.Context, runs int, env []string, engine string, stderr io.Writer) ([]Row, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "BigChangeList",
		"-benchtime", fmt.Sprintf("%dx", runs), "./harvest/")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("scenario 1%s: go test -bench: %w\n%s", engine, err, out)
	}
	rows, err := bigListTable(parseBenchOutput(strings.NewReader(string(out))))
	for i := range rows {
		rows[i].Scenario += engine
	}
	return rows, err
}

// benchResult is one line of `go test -bench` output: the figures by unit.
type benchResult map[string]float64

// parseBenchOutput reads the result lines of `go test -bench`, keyed by the
// benchmark's name without its -GOMAXPROCS suffix.
func parseBenchOutput(r io.Reader) map[string]benchResult {
	out := map[string]benchResult{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		res := benchResult{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			res[f[i+1]] = v
		}
		out[name] = res
	}
	return out
}

// bigListTable holds scenario 1's figures against its targets: a first
// harvest under 0.5 s and 150 MB, and one with nothing new under 0.25 s.
func bigListTable(results map[string]benchResult) ([]Row, error) {
	first, ok := results["BenchmarkBigChangeList"]
	if !ok {
		return nil, fmt.Errorf("scenario 1: no result for BenchmarkBigChangeList")
	}
	secs := first["ns/op"] / 1e9
	rss := first["peak-RSS-MB"]
	rows := []Row{
		{"1. big change list", fmt.Sprintf("50,000 new entries fetched, parsed and stored in %.2f s", secs), "< 0.5 s", check(secs < 0.5)},
		{"1. big change list", fmt.Sprintf("peak RSS %.0f MB (Go heap %.0f MB)", rss, first["peak-heap-MB"]), "< 150 MB", check(rss > 0 && rss < 150)},
	}
	for _, v := range []struct{ name, what string }{
		{"BenchmarkBigChangeListNothingNew", "served again unchanged, without validators"},
		{"BenchmarkBigChangeListRepublished", "served again with one byte changed, so parsed"},
	} {
		res, ok := results[v.name]
		if !ok {
			return nil, fmt.Errorf("scenario 1: no result for %s", v.name)
		}
		secs := res["ns/op"] / 1e9
		rows = append(rows, Row{"1. big change list, nothing new", fmt.Sprintf("%.2f s: %s", secs, v.what), "< 0.25 s", check(secs < 0.25)})
	}
	return rows, nil
}
