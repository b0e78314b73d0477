package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tidings/db"
	"tidings/internal/fleetsite"
	"tidings/internal/pgtest"
)

// TestWorkersOnOnePostgres: three tidings worker processes and a serve
// harvest forty loopback sites with changes on one PostgreSQL database;
// one worker is killed with SIGKILL in the middle of a harvest. Every
// change is found once, every site harvested by one process, and no host
// hears two requests closer than the host delay.
func TestWorkersOnOnePostgres(t *testing.T) {
	target := pgtest.NewDatabase(t)
	const (
		sites     = 40
		changes   = 3
		hostDelay = 200 * time.Millisecond
	)
	ctx := t.Context()
	bin := buildTidings(t)
	fleet, store, start := dueFleet(t, target, sites, changes, 20*time.Millisecond, "TIDINGS_HOST_DELAY", hostDelay.String())
	for _, f := range fleet {
		f.Forget()
	}

	penv := cleanEnv("TIDINGS_DB="+target, "TIDINGS_ALLOW_PRIVATE_ADDRESSES=1", "TIDINGS_HOST_DELAY="+hostDelay.String(),
		"TIDINGS_LOG_FORMAT=json", "TIDINGS_BASE_URL="+testBase, "TIDINGS_WORKERS=2")
	var procs []*served
	for range 3 {
		procs = append(procs, startWorker(t, bin, penv))
	}
	addr := freeAddr(t)
	procs = append(procs, startServe(t, bin, append(penv, "TIDINGS_ADDR="+addr), "http://"+addr+"/"))

	// The first worker dies while it holds a host for a harvest: a lease
	// that ends in more than the host delay is one being worked under.
	victim := ":" + strconv.Itoa(procs[0].cmd.Process.Pid) + ":"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the first worker held no host in 30 s\n%s", procs[0].stderr.String())
		}
		leases, err := store.HostLeases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		working := false
		for _, l := range leases {
			working = working || strings.HasPrefix(l.Host, "127.0.0.1:") && strings.Contains(l.Holder, victim) && time.Until(l.Until) > 10*time.Second
		}
		if working {
			break
		}
	}
	time.Sleep(30 * time.Millisecond)
	procs[0].cmd.Process.Kill()
	<-procs[0].exited
	procs[0].stopped = true

	// Its lease expires within a minute; then another takes its site.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		due, err := store.DueSites(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sites still due after two minutes", len(due))
		}
	}
	for _, p := range procs[1:] {
		p.stop(t, syscall.SIGTERM)
	}

	changesOnce(t, store, fleet, changes)
	harvested := harvestedBy(procs)
	for _, f := range fleet {
		if ps := harvested[f.Root()]; len(ps) != 1 {
			t.Errorf("%s harvested by processes %v; want one", f.URL, ps)
		}
		gap, overlaps, n := f.Closest()
		if overlaps > 0 || n > 1 && gap < hostDelay-15*time.Millisecond {
			t.Errorf("%s: %d requests, %d overlapping, closest %s apart; want none under %s", f.URL, n, overlaps, gap, hostDelay)
		}
	}
	per := map[int]int{}
	for _, ps := range harvested {
		for _, p := range ps {
			per[p]++
		}
	}
	t.Logf("sites harvested by each process (the first killed): %v; %s", per, time.Since(start).Round(time.Second))
}

// dueFleet follows sites loopback sites, each answering after delay, with
// tidings follow on the database target (env adds to its environment);
// then makes each due and adds changes new entries to its change list,
// new0.html first. The store is closed when the test ends.
func dueFleet(t *testing.T, target string, sites, changes int, delay time.Duration, env ...string) ([]*fleetsite.Site, *db.DB, time.Time) {
	t.Helper()
	ctx := t.Context()
	fleet := make([]*fleetsite.Site, sites)
	args := []string{"follow", "--workers", "8"}
	start := time.Now()
	for i := range fleet {
		fleet[i] = fleetsite.New(t, delay)
		fleet[i].Change("first.html", start.Add(-time.Hour))
		args = append(args, fleet[i].Root())
	}
	mustSucceed(t, tidings(t, newEnv(t, append([]string{"TIDINGS_DB", target}, env...)...), args...))
	store, err := db.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	stored, _ := store.Sites(ctx)
	for _, s := range stored {
		if err := store.SetNextHarvest(ctx, s.ID, start); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range fleet {
		for j := range changes {
			f.Change(fmt.Sprintf("new%d.html", j), start.Add(-time.Duration(j+1)*time.Minute))
		}
	}
	return fleet, store, start
}

// startWorker runs the binary's worker with env, killed when the test
// ends unless stop was called.
func startWorker(t *testing.T, bin string, env []string) *served {
	t.Helper()
	w := &served{cmd: exec.Command(bin, "worker"), exited: make(chan error, 1)}
	w.cmd.Env = env
	w.cmd.Stdout, w.cmd.Stderr = &w.stdout, &w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.exited <- w.cmd.Wait() }()
	t.Cleanup(func() {
		if !w.stopped {
			w.cmd.Process.Kill()
			<-w.exited
		}
	})
	return w
}

// harvestedBy reads the JSON logs of procs: which of them harvested each
// site, by the site's address.
func harvestedBy(procs []*served) map[string][]int {
	out := map[string][]int{}
	for i, p := range procs {
		for l := range strings.Lines(p.stderr.String()) {
			var rec struct{ Msg, Site string }
			if json.Unmarshal([]byte(l), &rec) == nil && rec.Msg == "harvested site" {
				out[rec.Site] = append(out[rec.Site], i)
			}
		}
	}
	return out
}

// changesOnce fails the test unless each of the changes new entries of
// each site of the fleet is stored exactly once.
func changesOnce(t *testing.T, store *db.DB, fleet []*fleetsite.Site, changes int) {
	t.Helper()
	found := map[string]int{}
	if err := store.ExportChanges(t.Context(), db.ExportFilter{}, func(c db.ExportedChange) error {
		found[c.URL]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, f := range fleet {
		for j := range changes {
			if u := fmt.Sprintf("%s/new%d.html", f.URL, j); found[u] != 1 {
				t.Errorf("%s stored %d times; want once", u, found[u])
			}
		}
	}
}
