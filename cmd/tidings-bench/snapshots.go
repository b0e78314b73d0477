package main

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Scenario 8's fleets. 8a: every site lists snapBudget pages, each once as
// created and dated in the days before today, so that one follow takes
// snapSites × snapBudget snapshots. 8b: scenario 2's shape with
// cyclePages pages a collection, of which cycleRate are revised.
const (
	snapSites  = 100
	snapBudget = 100
	cyclePages = 50
	cycleRate  = 0.05
)

// snapHostDelay is tidings' --host-delay in 8a. The target, 300 pages/s,
// is about extracting, diffing and storing on 2 cores; with the default
// 250 ms, 100 hosts could not be asked for more than 400 pages/s, and
// politeness, not the work measured, would set the pace. Pages are still
// spaced per host and robots.txt honoured.
const snapHostDelay = 10 * time.Millisecond

// snapWorkers is tidings' --workers in 8a. Peak memory grows with the
// site harvests under way, each holding its pages' snapshots until it
// stores them (measured: 75 MB with 25, 132 MB with 100), while past about
// 25 the 2 cores, not the hosts, set the pace. 8a also runs with every
// site at once, to say what that costs.
const snapWorkers = 25

// snapTimeout bounds each measured run of scenario 8; its fleets' first
// follow as well.
const snapTimeout = 150 * time.Second

// snapshots runs scenario 8: page snapshots taken in a follow (8a), then a
// harvest of 2,000 sites a few of whose pages changed (8b).
func (h *harness) snapshots(ctx context.Context, seed int64, sites int) ([]Row, error) {
	rows, err := h.snapshotThroughput(ctx, seed)
	if err != nil {
		return nil, err
	}
	more, err := h.snapshotCycle(ctx, seed, sites)
	return append(rows, more...), err
}

func (h *harness) snapshotThroughput(ctx context.Context, seed int64) ([]Row, error) {
	fleet, err := startFleet(ctx, h.fleetsim, seed, snapSites, "--collections", "1", "--lists", "1",
		"--entries", strconv.Itoa(snapBudget), "--pages", strconv.Itoa(snapBudget), "--recent")
	if err != nil {
		return nil, err
	}
	defer fleet.close()
	dbPath := filepath.Join(h.dir, "snapshots.db")
	fmt.Fprintf(h.stderr, "scenario 8a: following %d sites of %d pages each, %d at once, host delay %s\n", snapSites, snapBudget, snapWorkers, snapHostDelay)
	res, err := h.followPages(ctx, fleet, snapWorkers, dbPath)
	if err != nil {
		return nil, err
	}
	st, err := fleet.stats()
	if err != nil {
		return nil, err
	}
	sz, err := snapshotSizes(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(h.stderr, "scenario 8a: again, every site at once\n")
	all, err := h.followPages(ctx, fleet, snapSites, filepath.Join(h.dir, "snapshots-all.db"))
	if err != nil {
		return nil, err
	}
	n := len(sz.rows)
	rate := float64(n) / res.wall.Seconds()
	ended := endedAs(res)
	name := "8a. page snapshots"
	return []Row{
		{name, fmt.Sprintf("%d of %d pages snapshotted in %.1f s: %.0f pages/s (%d sites, %d at once, host delay %s; %d page requests; tidings' CPU time %.1f s, %.2f ms a page%s)",
			n, snapSites*snapBudget, res.wall.Seconds(), rate, snapSites, snapWorkers, snapHostDelay, st.Pages,
			res.cpu.Seconds(), perPage(res.cpu, n), ended), "≥ 300 pages/s", check(rate >= 300 && n == snapSites*snapBudget)},
		{name, fmt.Sprintf("stored snapshot (its row's column bytes, text brotli-compressed): median %s, p90 %s; text alone: median %s",
			kib(sz.median(sz.rows)), kib(sz.p90(sz.rows)), kib(sz.median(sz.text))), "median ≤ 4 KiB", check(n > 0 && sz.median(sz.rows) <= 4<<10)},
		{name, fmt.Sprintf("diff stored with each created change (its opening lines, JSON): median %s, p90 %s; with the snapshot, %s a page (median)",
			kib(sz.median(sz.diffs)), kib(sz.p90(sz.diffs)), kib(sz.median(sz.perPage))), "", nil},
		{name, fmt.Sprintf("peak RSS of follow %s (rusage Maxrss), %d sites at once", mb(res.peak), snapWorkers), "< 200 MB", check(res.ok() && res.peak < 200e6)},
		{name, fmt.Sprintf("peak RSS of follow %s with all %d sites at once (%.1f s%s)", mb(all.peak), snapSites, all.wall.Seconds(), endedAs(all)), "< 200 MB", check(all.ok() && all.peak < 200e6)},
	}, nil
}

// followPages follows the fleet's sites into a new database at dbPath,
// workers at once, taking snapBudget snapshots a site.
func (h *harness) followPages(ctx context.Context, fleet *fleetProc, workers int, dbPath string) (runResult, error) {
	fleet.send("reset")
	cmd := exec.CommandContext(ctx, h.bin, "follow", "--workers", strconv.Itoa(workers), "--from", "-")
	cmd.Env = h.env(dbPath, "TIDINGS_HOST_DELAY="+snapHostDelay.String(), "TIDINGS_PAGE_FETCHES="+strconv.Itoa(snapBudget))
	cmd.Stdin = strings.NewReader(strings.Join(fleet.urls, "\n") + "\n")
	return runMeasured(ctx, cmd, snapTimeout, rssGuard)
}

// perPage is d over n pages, in milliseconds.
func perPage(d time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return d.Seconds() * 1000 / float64(n)
}

// endedAs is "" for a run that ended well, else how it ended.
func endedAs(res runResult) string {
	if res.ok() && res.exit == 0 {
		return ""
	}
	return "; " + res.ending() + ": " + firstLine(res.output, 80)
}

func (h *harness) snapshotCycle(ctx context.Context, seed int64, sites int) ([]Row, error) {
	fleet, err := startFleet(ctx, h.fleetsim, seed, sites, "--pages", strconv.Itoa(cyclePages), "--recent")
	if err != nil {
		return nil, err
	}
	defer fleet.close()
	dbPath := filepath.Join(h.dir, "cycle.db")
	env := h.env(dbPath)
	fmt.Fprintf(h.stderr, "scenario 8b: following %d sites without snapshots, %d at once\n", sites, h.workers)
	// Reading every page of 2,000 sites first would take minutes: the
	// revised pages are each a site's first snapshot of them.
	fctx, cancel := context.WithTimeout(ctx, snapTimeout)
	followed, _ := h.followAll(fctx, append(slices.Clone(env), "TIDINGS_NO_SNAPSHOTS=1"), fleet.urls)
	cancel()
	revised := fleet.send(fmt.Sprintf("revise %g", cycleRate))
	fmt.Fprintf(h.stderr, "scenario 8b: %s pages; harvesting every site\n", strings.TrimPrefix(revised, "revised "))
	fleet.send("reset")
	cmd := exec.CommandContext(ctx, h.bin, "harvest", "--all", "--workers", strconv.Itoa(h.workers))
	cmd.Env = env
	res, err := runMeasured(ctx, cmd, snapTimeout, rssGuard)
	if err != nil {
		return nil, err
	}
	st, err := fleet.stats()
	if err != nil {
		return nil, err
	}
	sz, err := snapshotSizes(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	ended := endedAs(res)
	return []Row{{"8b. cycle, 5 % of pages changed",
		fmt.Sprintf("%d sites (%d followed) harvested in %.1f s, %d at once, default politeness: %s changed pages, %d page requests, %d snapshots stored; %d requests (%s); peak RSS %s%s",
			sites, followed, res.wall.Seconds(), h.workers, strings.TrimPrefix(revised, "revised "), st.Pages, len(sz.rows), st.Requests, statuses(st), mb(res.peak), ended),
		"< 60 s", check(res.ok() && res.exit == 0 && followed == sites && res.wall < time.Minute)}}, nil
}

// sizes are what scenario 8 reads back of its database, in bytes.
type sizes struct {
	rows  []int64 // each snapshot row's columns
	text  []int64 // each snapshot's compressed text
	diffs []int64 // each change's stored diff, when it has one
	// perPage is each snapshot row with the diffs of its page's changes.
	perPage []int64
}

// snapshotSizes reads the stored sizes from the database at path, read
// only, once tidings has ended.
func snapshotSizes(ctx context.Context, path string) (sizes, error) {
	var sz sizes
	d, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return sz, fmt.Errorf("open %s: %w", path, err)
	}
	defer d.Close()
	// Every column: the text and the hash by their bytes, the integers
	// (site_id, size) at 8 bytes each.
	const row = `coalesce(length(text), 0) + length(url) + length(final_url) + length(content_type) + length(title) +
		length(content_hash) + length(method) + length(etag) + length(last_modified) + length(fetched_at) + 8*2`
	if sz.rows, err = ints(ctx, d, "SELECT "+row+" FROM snapshots"); err != nil {
		return sz, err
	}
	if sz.text, err = ints(ctx, d, "SELECT coalesce(length(text), 0) FROM snapshots"); err != nil {
		return sz, err
	}
	if sz.diffs, err = ints(ctx, d, "SELECT length(diff) FROM changes WHERE diff != ''"); err != nil {
		return sz, err
	}
	// Summed here: changes has no index by URL alone, and a correlated
	// subquery would scan it once a page.
	rows, err := byURL(ctx, d, "SELECT url, "+row+" FROM snapshots")
	if err != nil {
		return sz, err
	}
	diffs, err := byURL(ctx, d, "SELECT url, length(diff) FROM changes WHERE diff != ''")
	if err != nil {
		return sz, err
	}
	for u, n := range rows {
		sz.perPage = append(sz.perPage, n+diffs[u])
	}
	slices.Sort(sz.perPage)
	return sz, nil
}

// byURL sums query's second column by its first.
func byURL(ctx context.Context, d *sql.DB, query string) (map[string]int64, error) {
	rows, err := d.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", query, err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var u string
		var n int64
		if err := rows.Scan(&u, &n); err != nil {
			return nil, err
		}
		out[u] += n
	}
	return out, rows.Err()
}

func ints(ctx context.Context, d *sql.DB, query string) ([]int64, error) {
	rows, err := d.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", query, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, rows.Err()
}

// median and p90 read a sorted slice; 0 when it is empty.
func (sizes) median(s []int64) int64 { return quantile(s, 0.5) }
func (sizes) p90(s []int64) int64    { return quantile(s, 0.9) }

func quantile(s []int64, q float64) int64 {
	if len(s) == 0 {
		return 0
	}
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func kib(n int64) string { return fmt.Sprintf("%.2f KiB", float64(n)/1024) }
