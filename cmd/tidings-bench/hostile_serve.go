package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"tidings/db"
)

// serveFeeds starts serve on the database a hostile follow left and asks
// for its collections' Atom feeds, feedRequests at once, half of them per
// page (?entries=page), as several readers polling the feed would.
func (h *harness) serveFeeds(ctx context.Context, scenario string, env []string, dbPath string) (Row, error) {
	paths, err := feedPaths(ctx, h.bin, env)
	if err != nil {
		return Row{}, err
	}
	if len(paths) == 0 {
		return Row{scenario, "serve: follow stored no feed, so none was asked for", "< 300 MB", nil}, nil
	}
	srv, err := startServe(ctx, h.bin, env, strings.TrimSuffix(dbPath, ".db")+".log")
	if err != nil {
		return Row{}, err
	}
	defer srv.close()
	stop := srv.guard(rssGuard)
	urls := make([]string, feedRequests)
	for i := range urls {
		urls[i] = srv.url(paths[i/2%len(paths)])
		if i%2 == 1 {
			urls[i] += "?entries=page"
		}
	}
	start := time.Now()
	got := askAtOnce(ctx, urls, hostileTimeout)
	took := time.Since(start)
	peak, note, ok := serveEnd(srv, stop())
	return Row{scenario, fmt.Sprintf("serve: %d feed requests at once (%d Atom, %d `?entries=page`): %s, %s gzipped, in %.1f s; peak RSS %s%s",
		feedRequests, (feedRequests+1)/2, feedRequests/2, got.statuses(), size(got.bytes), took.Seconds(), mb(peak), note),
		"< 300 MB", check(ok && peak < rssTarget)}, nil
}

// serveEnd reads serve's peak resident set: from /proc while it runs, from
// the kernel's accounting when it has ended. note says why the measure is
// not clean (serve killed by the guard, or gone), and ok is false then.
func serveEnd(srv *serveProc, killed bool) (peak int64, note string, ok bool) {
	if killed {
		<-srv.done
		return maxRSS(srv.cmd.ProcessState), fmt.Sprintf(", killed past the harness's bound of %s", mb(rssGuard)), false
	}
	if srv.exited() {
		return maxRSS(srv.cmd.ProcessState), ", serve stopped by itself", false
	}
	_, peak, err := srv.memory()
	if err != nil {
		return 0, ", its memory unreadable: " + err.Error(), false
	}
	return peak, "", true
}

// answers counts what a set of requests got back.
type answers struct {
	byStatus map[string]int // "200", or the error
	bytes    int64
}

func (a answers) statuses() string {
	keys := make([]string, 0, len(a.byStatus))
	for k := range a.byStatus {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d × %s", a.byStatus[k], k)
	}
	return strings.Join(parts, ", ")
}

// askAtOnce asks for every URL at the same time, gzip accepted, and reads
// every answer to its end, within timeout.
func askAtOnce(ctx context.Context, urls []string, timeout time.Duration) answers {
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	got := answers{byStatus: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, u := range urls {
		wg.Go(func() {
			status, n := askOne(ctx, client, u)
			mu.Lock()
			got.byStatus[status]++
			got.bytes += n
			mu.Unlock()
		})
	}
	wg.Wait()
	return got
}

func askOne(ctx context.Context, client *http.Client, u string) (status string, n int64) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "bad request", 0
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := client.Do(req)
	if err != nil {
		return "no answer", 0
	}
	defer resp.Body.Close()
	n, err = io.Copy(io.Discard, resp.Body)
	if err != nil {
		return "cut off", n
	}
	return fmt.Sprint(resp.StatusCode), n
}

// serveHarvest makes every site of the database due, starts serve (with
// args) and lets its scheduler harvest them all, within hostileTimeout,
// then reads its memory. When follow stored no site, site is added as a
// site followed before it turned hostile, which serve's harvest
// discovers anew.
func (h *harness) serveHarvest(ctx context.Context, scenario string, env []string, dbPath, site string, args []string) (Row, error) {
	n, added, err := markDue(ctx, dbPath, site)
	if err != nil {
		return Row{}, err
	}
	if n == 0 {
		return Row{scenario, "serve: follow stored no site, so there was none to harvest", "< 300 MB", nil}, nil
	}
	start := time.Now()
	srv, err := startServe(ctx, h.bin, env, strings.TrimSuffix(dbPath, ".db")+".log", args...)
	if err != nil {
		return Row{}, err
	}
	defer srv.close()
	stop := srv.guard(rssGuard)
	harvested, waited, err := waitHarvested(ctx, dbPath, srv, start)
	if err != nil {
		return Row{}, err
	}
	var rss int64
	if !srv.exited() {
		rss, _, _ = procMemory(srv.cmd.Process.Pid)
	}
	peak, note, ok := serveEnd(srv, stop())
	switch {
	case ok && waited >= hostileTimeout:
		note, ok = fmt.Sprintf(", not done at the %s timeout", secs(hostileTimeout)), false
	case ok:
		note = fmt.Sprintf(", %s RSS after", mb(rss))
	}
	what := "the site again"
	switch {
	case added:
		what = "the site, added bare as follow stored none,"
	case n > 1:
		what = fmt.Sprintf("the %d sites again", n)
	}
	return Row{scenario, fmt.Sprintf("%s: its scheduler harvesting %s in %.1f s (%d without error): peak RSS %s%s",
		strings.Join(append([]string{"serve"}, args...), " "), what, waited.Seconds(), harvested, mb(peak), note), "< 300 MB", check(ok && peak < rssTarget)}, nil
}

// markDue sets every site of the database due now, and returns how many
// there are. When there is none, it adds site, never harvested, so due.
func markDue(ctx context.Context, path, site string) (n int, added bool, err error) {
	d, err := db.Open(ctx, path)
	if err != nil {
		return 0, false, err
	}
	defer d.Close()
	sites, err := d.Sites(ctx)
	if err != nil {
		return 0, false, err
	}
	if len(sites) == 0 && site != "" {
		_, err := d.CreateSite(ctx, db.Site{URL: site, InputURL: site})
		return 1, true, err
	}
	now := time.Now().UTC()
	for _, s := range sites {
		if err := d.SetNextHarvest(ctx, s.ID, now); err != nil {
			return 0, false, err
		}
	}
	return len(sites), false, nil
}

// waitHarvested waits until no site of the database is due any more
// (every harvest since start has ended and set the next one), until serve
// has ended or until hostileTimeout; it returns how many sites were
// harvested since start without error, and how long it waited.
func waitHarvested(ctx context.Context, path string, srv *serveProc, start time.Time) (ok int, waited time.Duration, err error) {
	d, err := db.Open(ctx, path)
	if err != nil {
		return 0, 0, err
	}
	defer d.Close()
	for time.Since(start) < hostileTimeout && !srv.exited() {
		due, err := d.DueSites(ctx, time.Now().UTC())
		if err != nil {
			return 0, 0, err
		}
		if len(due) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-srv.done:
		case <-time.After(250 * time.Millisecond):
		}
	}
	waited = time.Since(start)
	sites, err := d.Sites(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, s := range sites {
		if s.LastHarvestAt != nil && !s.LastHarvestAt.Before(start.Truncate(time.Second)) && s.LastError == "" {
			ok++
		}
	}
	return ok, waited, nil
}

// feedPaths lists the path of every collection feed `tidings feeds` lists.
func feedPaths(ctx context.Context, bin string, env []string) ([]string, error) {
	cmd := exec.CommandContext(ctx, bin, "feeds", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("tidings feeds: %w", err)
	}
	var paths []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var f struct {
			FeedURL string `json:"feed_url"`
		}
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, fmt.Errorf("tidings feeds --json: %w\n%s", err, out)
		}
		u, err := url.Parse(f.FeedURL)
		if err != nil {
			return nil, err
		}
		paths = append(paths, u.Path)
	}
	return paths, sc.Err()
}

// hostileRobots is the third attack: robotsOrigins sites, each on its own
// port with a robots.txt of robotsBytes, followed at once, then harvested
// again by serve's scheduler.
func (h *harness) hostileRobots(ctx context.Context) ([]Row, error) {
	const scenario = "7. hostile: 300 origins, robots.txt of 512 KiB each"
	fleet, err := startFleet(ctx, h.fleetsim, 1, robotsOrigins,
		"--collections", "1", "--lists", "1", "--entries", "5", "--robots-bytes", fmt.Sprint(robotsBytes))
	if err != nil {
		return nil, err
	}
	defer fleet.close()
	dbPath := filepath.Join(h.dir, "hostile-robots.db")
	env := h.env(dbPath)
	cmd := exec.Command(h.bin, append([]string{"follow", "--from", "-"}, hostileArgs...)...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(strings.Join(fleet.urls, "\n") + "\n")
	fleet.send("reset")
	res, err := runMeasured(ctx, cmd, hostileTimeout, rssGuard)
	if err != nil {
		return nil, err
	}
	followed, _, err := followedSites(ctx, h.bin, env)
	if err != nil {
		return nil, err
	}
	st, err := fleet.stats()
	if err != nil {
		return nil, err
	}
	rows := []Row{followRow(scenario, res, fmt.Sprintf("%d of %d followed, %d at once, %s sent", followed, robotsOrigins, hostileWorkers, size(st.Bytes)))}
	fleet.send("reset")
	row, err := h.serveHarvest(ctx, scenario, env, dbPath, "", hostileArgs)
	if err != nil {
		return nil, err
	}
	if st, err = fleet.stats(); err != nil {
		return nil, err
	}
	row.Figure += fmt.Sprintf("; %s sent", size(st.Bytes))
	return append(rows, row), nil
}
