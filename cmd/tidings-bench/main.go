// Command tidings-bench runs the benchmark scenarios of issue 9 against the
// real tidings binary, a fresh database and a fleet of synthetic sites
// (cmd/fleetsim) on loopback, and writes a Markdown table to standard
// output and to BENCHMARKS.md. Run it from the module's root:
//
//	go run ./cmd/tidings-bench [--sites 2000] [--workers 256]
//
// Scenario 1 runs the harvest package's big change list benchmarks, then
// times `tidings follow` of the same list as a person runs it, process
// start to exit, beside the Python resync client's parse of the file.
// Scenario 2 follows every site in one `tidings follow --from -`, which is
// its first harvest; scenario 3 runs `tidings harvest --all` over the
// unchanged fleet. Both keep tidings' politeness: the default delay between
// two requests to a host, and robots.txt. Scenario 4 loads one feed of
// `tidings serve` with wrk, beside a bare net/http handler and nginx
// serving the same bytes; scenario 5 does so while the rest of the fleet is
// followed; scenario 6 reads serve's memory with 10,000 sites followed.
// Scenario 7 serves the attacks of the issues "Hardening, round two" and
// "round three" from loopback and measures the memory, the bytes read and
// the time of follow, harvest, serve and the public check meeting them,
// and runs the worker package's churning-site benchmark: a site whose
// 200 pages change whole at every harvest, kept within its share.
// Scenario 8 follows sites whose change lists name HTML pages, measuring
// page snapshots (fetch, extract, diff, store), then harvests 2,000 sites
// after a few of their pages changed. Scenario 9 follows a fleet of
// ResourceSync sites, sites with only a sitemap and sites with none, then
// harvests it unchanged and after 2 % of its pages changed. Scenario 10
// runs the worker package's retention benchmarks: a site whose pages are
// rewritten whole every day, harvested and swept six times, and a 256 KB
// page replaced. Scenario 11 follows a fleet into a PostgreSQL database
// (--postgres), changes every site, and times one and then three
// `tidings worker` processes harvesting it, counting the requests to a
// host closer than the host delay.
// --only and --skip pick scenarios: --only 4,6; BENCHMARKS.md then keeps
// the other scenarios' rows from its last full run.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tidings-bench:", err)
		os.Exit(1)
	}
}

type stats struct {
	Requests    int                  `json:"requests"`
	NotModified int                  `json:"not_modified"`
	Bytes       int64                `json:"bytes"`
	ByStatus    map[string]int       `json:"by_status"`
	Pages       int                  `json:"pages"`
	Conditional int                  `json:"conditional"`
	Kinds       map[string]kindStats `json:"kinds"`
	Overlapping int                  `json:"overlapping"`
	TooClose    int                  `json:"too_close"`
	ClosestMS   float64              `json:"closest_ms"`
}

// kindStats are fleetsim's counts for the sites of one kind; its key in
// stats.Kinds ends in "-novalidators" for servers that send none.
type kindStats struct {
	Requests    int   `json:"requests"`
	Conditional int   `json:"conditional"`
	NotModified int   `json:"not_modified"`
	Pages       int   `json:"pages"`
	Sitemaps    int   `json:"sitemaps"`
	Bytes       int64 `json:"bytes"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tidings-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sites := fs.Int("sites", 2000, "sites in the fleet")
	workers := fs.Int("workers", defaultWorkers, "sites tidings harvests at once in scenarios 2, 3, 5 and 8 (its --workers); scenario 9 takes 512")
	seed := fs.Int64("seed", 1, "the fleet's seed")
	out := fs.String("out", "BENCHMARKS.md", "file the table is written to; empty for none")
	only := fs.String("only", "", "comma-separated scenarios to run (default: all)")
	skip := fs.String("skip", "", "comma-separated scenarios not to run")
	l := load{threads: 2}
	fs.IntVar(&l.connections, "connections", 64, "wrk's connections")
	fs.DurationVar(&l.duration, "duration", 20*time.Second, "how long wrk loads each server in scenarios 4 and 6")
	rounds := fs.Int("rounds", 4, "turns scenario 4's servers take, sharing --duration")
	postgres := fs.String("postgres", "", "PostgreSQL server for scenario 11 and the PostgreSQL figures of scenarios 1 and 4, as the URL of a database from which the user may create others (default $TIDINGS_BENCH_POSTGRES); without it scenario 11 is left out")
	workerSites := fs.Int("worker-sites", 120, "sites in scenario 11's fleet")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sel, err := selectScenarios(*only, *skip)
	if err != nil {
		return err
	}
	if *postgres == "" {
		// Not the flag's default: --help would print its password.
		*postgres = os.Getenv("TIDINGS_BENCH_POSTGRES")
	}
	if sel.has(11) && *postgres == "" {
		fmt.Fprintln(stderr, "scenario 11 left out: it needs a PostgreSQL server (--postgres or TIDINGS_BENCH_POSTGRES)")
		sel = slices.DeleteFunc(sel, func(n int) bool { return n == 11 })
	}
	if err := checkTools(sel); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "tidings-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"tidings", "fleetsim"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Stderr = stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build %s: %w", name, err)
		}
	}
	h := &harness{dir: dir, bin: filepath.Join(dir, "tidings"), fleetsim: filepath.Join(dir, "fleetsim"),
		workers: *workers, load: l, rounds: max(*rounds, 1), postgres: *postgres, stderr: stderr}
	if sel.has(2) || sel.has(4) || sel.has(5) {
		if h.fleet, err = startFleet(ctx, h.fleetsim, *seed, *sites); err != nil {
			return err
		}
		defer h.fleet.close()
	}
	var rows []Row
	if sel.has(1) {
		fmt.Fprintln(stderr, "scenario 1: a 50,000-entry change list (go test -bench BigChangeList ./harvest/)")
		more, err := bigListRows(ctx, 5, *postgres, stderr)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
		if more, err = h.bigListFollowRows(ctx); err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	if sel.has(2) {
		more, err := h.fleetCycles(ctx)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	if sel.has(4) || sel.has(5) {
		more, err := h.servingScenarios(ctx, sel)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	if sel.has(6) {
		more, err := h.memory(ctx)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	if sel.has(7) {
		more, err := h.hostile(ctx)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	if sel.has(8) {
		more, err := h.snapshots(ctx, *seed, *sites)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	if sel.has(9) {
		more, err := h.anySite(ctx, *seed, *sites)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
		if more, err = h.anyBigSites(ctx, *seed); err != nil {
			return err
		}
		rows = append(rows, more...)
		if more, err = rollingRows(ctx, stderr); err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	if sel.has(10) {
		fmt.Fprintln(stderr, "scenario 10: retention (go test -bench Retention ./worker/)")
		more, err := retentionRows(ctx, stderr)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	if sel.has(11) {
		more, err := h.workerScenario(ctx, *postgres, *seed, *workerSites)
		if err != nil {
			return err
		}
		rows = append(rows, more...)
	}
	command := "go run ./cmd/tidings-bench"
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		if v == "" || strings.ContainsAny(v, " \t") {
			v = strconv.Quote(v)
		}
		if f.Name == "postgres" {
			v = "URL" // its password stays out of the record
		}
		command += " --" + f.Name + " " + v
	})
	date := time.Now().UTC().Format("2006-01-02")
	md := fmt.Sprintf("# Benchmarks\n\n`%s`, %s, on %d CPU cores shared by tidings, the fleet and the load generators; "+
		"tidings' default politeness (250 ms between two requests to a host, robots.txt honoured).\n\n%s",
		command, date, runtime.NumCPU(), table(rows))
	fmt.Fprint(stdout, md)
	if *out == "" {
		return nil
	}
	old, err := os.ReadFile(*out)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	switch {
	case len(old) == 0:
	case len(sel) < len(allScenarios):
		// A partial run replaces its own scenarios' rows and keeps the
		// others' figures of record.
		md = mergeBenchmarks(string(old), sel, fmt.Sprintf("`%s`, %s", command, date), rows)
	default:
		// The sections after the table hold figures this harness does
		// not measure (a package's own go test -bench): a full run keeps
		// them too.
		if rest := afterTable(string(old)); rest != "" {
			md += "\n" + rest
		}
	}
	return os.WriteFile(*out, []byte(md), 0o644)
}

// tidingsEnv is this process's environment without TIDINGS_* variables, so
// that a setting left in the shell cannot change what is measured, plus
// extra.
func tidingsEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TIDINGS_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// fleetProc is a running fleetsim, driven through its standard input.
type fleetProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	urls  []string
	sites []fleetSite // what each site is, in a fleet of several kinds
}

func startFleet(ctx context.Context, bin string, seed int64, n int, args ...string) (*fleetProc, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"--sites", fmt.Sprint(n), "--seed", fmt.Sprint(seed)}, args...)...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f := &fleetProc{cmd: cmd, in: in, out: bufio.NewScanner(pipe)}
	// The answer to "revised" is one line naming thousands of pages.
	f.out.Buffer(make([]byte, 64<<10), 64<<20)
	for f.out.Scan() {
		line := f.out.Text()
		if line == "ready" {
			return f, nil
		}
		site, err := parseSiteLine(line)
		if err != nil {
			f.close()
			return nil, err
		}
		f.urls = append(f.urls, site.url)
		f.sites = append(f.sites, site)
	}
	f.close()
	return nil, fmt.Errorf("fleetsim stopped before it was ready")
}

func (f *fleetProc) send(line string) string {
	fmt.Fprintln(f.in, line)
	if !f.out.Scan() {
		return ""
	}
	return f.out.Text()
}

func (f *fleetProc) stats() (stats, error) {
	var s stats
	line := f.send("stats")
	if err := json.Unmarshal([]byte(strings.TrimSpace(line)), &s); err != nil {
		return s, fmt.Errorf("fleetsim stats %q: %w", line, err)
	}
	return s, nil
}

func (f *fleetProc) close() {
	f.in.Close()
	f.cmd.Wait()
}
