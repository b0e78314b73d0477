package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// workersHostDelay is tidings' default --host-delay, which scenario 11
// keeps and the fleet holds every host to.
const workersHostDelay = 250 * time.Millisecond

// arrivalJitter is how much sooner than the host delay a request may
// reach a site and not count as too close: the client spaces the starts
// of its requests, and on 2 busy cores one request may take that much
// longer than the next to arrive (a new connection, a goroutine waiting
// for a core).
const arrivalJitter = 25 * time.Millisecond

// workerRun is what one cycle of scenario 11 measured.
type workerRun struct {
	procs     int
	sites     int // sites harvested in the cycle
	took      time.Duration
	twice     int // sites harvested by more than one process, or twice
	changes   int // changes stored by the cycle
	requests  int
	overlaps  int
	tooClose  int
	closest   float64 // ms between the closest two requests to a host
	perWorker []int   // sites each process harvested
}

// workerScenario runs scenario 11: a fleet of n sites, followed into a
// fresh PostgreSQL database and changed, then harvested once by 1 and by 3
// `tidings worker` processes sharing it, with the default host delay.
func (h *harness) workerScenario(ctx context.Context, server string, seed int64, n int) ([]Row, error) {
	var runs []workerRun
	for _, procs := range []int{1, 3} {
		fmt.Fprintf(h.stderr, "scenario 11: %d sites harvested by %d worker process(es) on PostgreSQL\n", n, procs)
		r, err := h.workerCycle(ctx, server, seed, n, procs)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	one, three := runs[0], runs[1]
	rate := func(r workerRun) float64 { return float64(r.sites) / r.took.Minutes() }
	speedup := rate(three) / rate(one)
	var rows []Row
	for _, r := range runs {
		rows = append(rows, Row{"11. several workers",
			fmt.Sprintf("%d `tidings worker` (--workers 4 each) on one PostgreSQL: %d of %d changed sites harvested in %.1f s, %.0f sites/min (by process: %s); %d changes stored; %d requests",
				r.procs, r.sites, n, r.took.Seconds(), rate(r), joinInts(r.perWorker), r.changes, r.requests), "", nil})
	}
	dups := one.twice + three.twice + abs(three.changes-one.changes)
	violations := one.overlaps + one.tooClose + three.overlaps + three.tooClose
	rows = append(rows,
		Row{"11. several workers", fmt.Sprintf("3 workers against 1: %.2f × the sites per minute", speedup), "≥ 2.5 ×", check(speedup >= 2.5)},
		Row{"11. several workers", fmt.Sprintf("duplicates: %d sites harvested twice in a cycle (1 worker: %d, 3: %d), changes stored %d and %d",
			one.twice+three.twice, one.twice, three.twice, one.changes, three.changes), "0", check(dups == 0)},
		Row{"11. several workers", fmt.Sprintf("politeness: %d requests to a host while another was answered, %d sooner than %s after the one before (1 worker: %d, 3: %d); the closest two %.0f ms and %.0f ms apart",
			one.overlaps+three.overlaps, one.tooClose+three.tooClose, workersHostDelay-arrivalJitter,
			one.overlaps+one.tooClose, three.overlaps+three.tooClose, one.closest, three.closest), "0", check(violations == 0)},
	)
	return rows, nil
}

// workerCycle follows a fresh fleet into a new database, changes every
// site, then starts procs workers and times them until each site was
// harvested.
func (h *harness) workerCycle(ctx context.Context, server string, seed int64, n, procs int) (workerRun, error) {
	r := workerRun{procs: procs, perWorker: make([]int, procs)}
	name := fmt.Sprintf("tidings_bench_workers_%d_%d", procs, time.Now().Unix())
	target, drop, err := createDatabase(ctx, server, name)
	if err != nil {
		return r, err
	}
	defer drop()
	fleet, err := startFleet(ctx, h.fleetsim, seed, n, "--recent", "--entries", "20", "--politeness", (workersHostDelay - arrivalJitter).String())
	if err != nil {
		return r, err
	}
	defer fleet.close()
	// Followed due again a second later; the workers then set a day.
	env := h.env(target, "TIDINGS_INTERVAL=1s")
	if followed, _ := h.followAll(ctx, env, fleet.urls); followed != n {
		return r, fmt.Errorf("scenario 11: %d of %d sites followed", followed, n)
	}
	// A follow leaves the reading of its pages to the harvest after it:
	// that harvest is taken here, without the host delay (the fleet's
	// counts start again below), so the cycle measured is a day's, not a
	// follow's tail.
	base := exec.CommandContext(ctx, h.bin, "harvest", "--all", "--host-delay", "0s", "--workers", strconv.Itoa(h.workers))
	base.Env = env
	if out, err := base.CombinedOutput(); err != nil {
		return r, fmt.Errorf("scenario 11: the harvest after the follow: %v\n%s", err, lastLines(string(out), 20))
	}
	before, err := countChanges(ctx, h.bin, env)
	if err != nil {
		return r, err
	}
	fleet.send("mutate 1")
	fleet.send("reset")
	time.Sleep(time.Second)

	var mu sync.Mutex
	seen := map[string]int{}
	done := make(chan struct{})
	var once sync.Once
	wenv := h.env(target, "TIDINGS_LOG_FORMAT=json", "TIDINGS_WORKERS=4")
	start := time.Now()
	var workers []*exec.Cmd
	var readers sync.WaitGroup
	for i := range procs {
		cmd := exec.CommandContext(ctx, h.bin, "worker")
		cmd.Env = wenv
		logs, err := cmd.StderrPipe()
		if err != nil {
			return r, err
		}
		if err := cmd.Start(); err != nil {
			return r, err
		}
		workers = append(workers, cmd)
		readers.Go(func() {
			sc := bufio.NewScanner(logs)
			for sc.Scan() {
				var rec struct{ Msg, Site string }
				if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Msg != "harvested site" {
					continue
				}
				mu.Lock()
				seen[rec.Site]++
				r.perWorker[i]++
				if len(seen) == n {
					r.took = time.Since(start)
					once.Do(func() { close(done) })
				}
				mu.Unlock()
			}
			io.Copy(io.Discard, logs)
		})
	}
	select {
	case <-done:
	case <-time.After(30 * time.Minute):
	case <-ctx.Done():
	}
	for _, cmd := range workers {
		cmd.Process.Signal(syscall.SIGTERM)
	}
	readers.Wait()
	for _, cmd := range workers {
		cmd.Wait()
	}
	if r.took == 0 {
		return r, fmt.Errorf("scenario 11: %d of %d sites harvested before the workers were stopped", len(seen), n)
	}
	st, err := fleet.stats()
	if err != nil {
		return r, err
	}
	after, err := countChanges(ctx, h.bin, env)
	if err != nil {
		return r, err
	}
	r.sites, r.changes = len(seen), after-before
	for _, k := range seen {
		if k > 1 {
			r.twice++
		}
	}
	r.requests, r.overlaps, r.tooClose, r.closest = st.Requests, st.Overlapping, st.TooClose, st.ClosestMS
	return r, nil
}

// createDatabase creates the database name on the PostgreSQL server (a
// URL of a database the user may create others from) with createdb, and
// returns its URL and a function that drops it.
func createDatabase(ctx context.Context, server, name string) (target string, drop func(), err error) {
	u, err := url.Parse(server)
	if err != nil {
		return "", nil, fmt.Errorf("--postgres: %w", err)
	}
	if out, err := exec.CommandContext(ctx, "createdb", "--maintenance-db="+server, name).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("createdb %s: %w\n%s", name, err, out)
	}
	u.Path = "/" + name
	return u.String(), func() {
		exec.Command("dropdb", "--maintenance-db="+server, "--force", name).Run()
	}, nil
}

// countChanges counts the changes `tidings export changes` prints.
func countChanges(ctx context.Context, bin string, env []string) (int, error) {
	cmd := exec.CommandContext(ctx, bin, "export", "changes")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("export changes: %w", err)
	}
	return strings.Count(string(out), "\n"), nil
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

func abs(n int) int { return max(n, -n) }
