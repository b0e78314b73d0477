package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// harness is what the scenarios share: the built binaries, the fleet, a
// temporary directory for their databases, and how wrk loads a server.
type harness struct {
	dir      string
	bin      string     // the tidings binary
	fleetsim string     // the fleetsim binary
	fleet    *fleetProc // the fleet of scenarios 2 to 5, when they run
	workers  int        // tidings' --workers when following
	load     load
	rounds   int // wrk runs per target in scenario 4, taking turns
	// postgres is a PostgreSQL server (--postgres), "" for none:
	// scenario 4 then also serves the feed from a database there.
	postgres string
	stderr   io.Writer
}

// env is the environment of a tidings command on the database at db.
func (h *harness) env(db string, extra ...string) []string {
	return tidingsEnv(append([]string{"TIDINGS_DB=" + db, "TIDINGS_ALLOW_PRIVATE_ADDRESSES=1"}, extra...)...)
}

// followAll follows urls in one `tidings follow --from -`, h.workers sites
// at once, into the database env names, and returns once it ends or ctx
// does, with how many sites and collections it added.
func (h *harness) followAll(ctx context.Context, env, urls []string) (sites, cols int) {
	sitesBefore, colsBefore, err := followedSites(ctx, h.bin, env)
	if err != nil {
		fmt.Fprintf(h.stderr, "counting the sites followed: %v\n", err)
	}
	cmd := exec.CommandContext(ctx, h.bin, "follow", "--workers", strconv.Itoa(h.workers), "--from", "-")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(strings.Join(urls, "\n") + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(h.stderr, "follow: %v\n%s\n", err, lastLines(string(out), 20))
	}
	sites, cols, err = followedSites(context.WithoutCancel(ctx), h.bin, env)
	if err != nil {
		fmt.Fprintf(h.stderr, "counting the sites followed: %v\n", err)
	}
	return sites - sitesBefore, cols - colsBefore
}

// scenarios is the set --only and --skip leave to run.
type scenarios []int

// allScenarios are the scenarios the harness runs; 1 and 10 are Go
// benchmarks.
var allScenarios = scenarios{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}

// selectScenarios reads --only and --skip: comma-separated scenario
// numbers. Scenarios 2 and 3 are picked or left out together.
func selectScenarios(only, skip string) (scenarios, error) {
	parse := func(list string) (scenarios, error) {
		var out scenarios
		for f := range strings.SplitSeq(list, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			n, err := strconv.Atoi(f)
			if err != nil || !slices.Contains(allScenarios, n) {
				return nil, fmt.Errorf("no scenario %q: the harness runs scenarios 1 to %d", f, len(allScenarios))
			}
			out = append(out, n)
			// 3 harvests the database 2 filled: they go together.
			if n == 2 || n == 3 {
				out = append(out, 5-n)
			}
		}
		return out, nil
	}
	sel := allScenarios
	if only != "" {
		var err error
		if sel, err = parse(only); err != nil {
			return nil, err
		}
	}
	skipped, err := parse(skip)
	if err != nil {
		return nil, err
	}
	var out scenarios
	for _, n := range allScenarios {
		if slices.Contains(sel, n) && !slices.Contains(skipped, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func (s scenarios) has(n int) bool { return slices.Contains(s, n) }

// checkTools fails early, naming the Debian package, when a tool the
// selected scenarios need is missing.
func checkTools(sel scenarios) error {
	var missing []string
	if _, err := exec.LookPath("wrk"); err != nil && (sel.has(4) || sel.has(5) || sel.has(6)) {
		missing = append(missing, "wrk (apt-get install wrk)")
	}
	if _, err := nginxPath(); err != nil && sel.has(4) {
		missing = append(missing, "nginx (apt-get install nginx-light)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s; or leave out the scenarios that need them with --skip", strings.Join(missing, ", "))
	}
	return nil
}

// nginxPath finds nginx, which Debian installs in /usr/sbin: not on every
// user's PATH.
func nginxPath() (string, error) {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	return exec.LookPath("/usr/sbin/nginx")
}
