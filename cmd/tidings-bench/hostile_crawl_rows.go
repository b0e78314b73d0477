package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"tidings/db"
)

// Targets of issue 25, "Done when".
const (
	checkReadTarget   = 25e6  // bytes one anonymous check reads
	checkRSSTarget    = 150e6 // serve's peak while it checks
	harvestReadTarget = 100e6 // bytes a harvest of the cannon site reads
	harvestTimeTarget = 2 * time.Minute
	sessionTarget     = 12 // pages watched of a site of 10 and its home
	soft404Target     = 10 // pages watched of a site that makes them up
)

// hostileCrawl is issue 25's attacks on the public check and on the crawl
// of sites that publish nothing.
func (h *harness) hostileCrawl(ctx context.Context) ([]Row, error) {
	fmt.Fprintln(h.stderr, "scenario 7: an anonymous check of a site of endless pages and files")
	row, err := h.hostileCheck(ctx)
	if err != nil {
		return nil, err
	}
	rows := []Row{row}
	fmt.Fprintln(h.stderr, "scenario 7: a harvest of that site, and the next")
	more, err := h.hostileCannon(ctx)
	if err != nil {
		return nil, err
	}
	rows = append(rows, more)
	fmt.Fprintln(h.stderr, "scenario 7: four hostile sites at once (endless, dripping, session ids, soft 404)")
	four, err := h.hostileFour(ctx)
	if err != nil {
		return nil, err
	}
	rows = append(rows, four...)
	fmt.Fprintln(h.stderr, "scenario 7: a site of 500 endless links, and one whose every document drips")
	budget, err := h.hostileBudget(ctx)
	if err != nil {
		return nil, err
	}
	return append(rows, budget...), nil
}

// hostileCheck asks serve's public check page, as a visitor without an
// account, about a site linking 20 endless pages and 20 endless files.
func (h *harness) hostileCheck(ctx context.Context) (Row, error) {
	const scenario = "7. hostile: an anonymous check of a site linking 20 endless pages and 20 endless files"
	site, err := startSite(cannonSite)
	if err != nil {
		return Row{}, err
	}
	defer site.close()
	dbPath := filepath.Join(h.dir, "hostile-check.db")
	srv, err := startServe(ctx, h.bin, h.env(dbPath), strings.TrimSuffix(dbPath, ".db")+".log")
	if err != nil {
		return Row{}, err
	}
	defer srv.close()
	stop := srv.guard(rssGuard)
	pid := srv.cmd.Process.Pid
	before, err := procRead(pid)
	if err != nil {
		return Row{}, err
	}
	start := time.Now()
	status, _ := askOne(ctx, &http.Client{Timeout: hostileTimeout}, srv.url("/check?url="+url.QueryEscape(site.base+"/")))
	took := time.Since(start)
	after, err := procRead(pid)
	if err != nil {
		return Row{}, err
	}
	peak, note, ok := serveEnd(srv, stop())
	read := after - before
	return Row{scenario, fmt.Sprintf("serve's `/check?url=SITE/`: %s in %.1f s; serve read %s (the kernel's count of its reads over the check), the site wrote %s in %s%s; serve's peak RSS %s%s",
		status, took.Seconds(), size(read), size(site.sent()), requests(site.requests.Load()), site.note(), mb(peak), note),
		"≤ 25 MB read, ≤ 150 MB RSS", check(ok && status == "200" && site.bounded() && read <= checkReadTarget && peak <= checkRSSTarget)}, nil
}

// hostileCannon follows the site of endless pages and files, then
// harvests it again, each a `tidings` run of its own whose reads the
// kernel counts.
func (h *harness) hostileCannon(ctx context.Context) (Row, error) {
	const scenario = "7. hostile: a harvest of a site linking 20 endless pages and 20 endless files"
	site, err := startSite(cannonSite)
	if err != nil {
		return Row{}, err
	}
	defer site.close()
	env := h.env(filepath.Join(h.dir, "hostile-cannon.db"))
	first, err := runMeasured(ctx, command(h.bin, env, "follow", site.base+"/"), hostileTimeout, rssGuard)
	if err != nil {
		return Row{}, err
	}
	wrote, asked, bounded := site.sent(), site.requests.Load(), site.bounded()
	site.reset()
	next, err := runMeasured(ctx, command(h.bin, env, "harvest", "--all"), hostileTimeout, rssGuard)
	if err != nil {
		return Row{}, err
	}
	share := 100 * float64(next.read) / float64(max(first.read, 1))
	return Row{scenario, fmt.Sprintf("follow: read %s in %.1f s, %s; the site wrote %s in %s; peak RSS %s. The next harvest (`tidings harvest --all`): read %s (%.1f %% of the first's) in %.1f s, %s; the site wrote %s in %s%s",
		size(first.read), first.wall.Seconds(), first.ending(), size(wrote), requests(asked), mb(first.peak),
		size(next.read), share, next.wall.Seconds(), next.ending(), size(site.sent()), requests(site.requests.Load()), site.note()),
		"≤ 100 MB, the next ≤ 10 %", check(first.ok() && next.ok() && bounded && site.bounded() && first.read >= 0 && next.read >= 0 &&
			first.read <= harvestReadTarget && share <= 10)}, nil
}

// hostileFour follows the four sites at once into one database, then lets
// serve's scheduler harvest them again at once.
func (h *harness) hostileFour(ctx context.Context) ([]Row, error) {
	handlers := []func(string) http.HandlerFunc{cannonSite, dripSite, sessionSite, soft404Site}
	var sites []*hostileSite
	defer func() { closeSites(sites) }()
	for _, hf := range handlers {
		s, err := startSite(hf)
		if err != nil {
			return nil, err
		}
		sites = append(sites, s)
	}
	cannon, drip, session, soft := sites[0], sites[1], sites[2], sites[3]
	dbPath := filepath.Join(h.dir, "hostile-four.db")
	env := h.env(dbPath)
	const scenario = "7. hostile: the four sites above at once (endless pages and files, dripping pages, session ids, soft 404)"
	res, followed, err := h.followAtOnce(ctx, env, sites, nil)
	if err != nil {
		return nil, err
	}
	dripFollow, dripFollowRequests := drip.busy(), drip.requests.Load()
	rows := []Row{followRow(scenario, res, fmt.Sprintf("%d of %d followed, %d at once; the sites wrote %s (the endless one %s)",
		followed, len(sites), hostileWorkers, size(sentBy(sites)), size(cannon.sent())))}
	for _, s := range sites {
		s.reset()
	}
	row, err := h.serveHarvest(ctx, scenario, env, dbPath, "", nil)
	if err != nil {
		return nil, err
	}
	row.Figure += fmt.Sprintf("; the sites wrote %s", size(sentBy(sites)))
	rows = append(rows, row)
	dripRow := Row{"7. hostile: five pages dripping a byte every 2 s", fmt.Sprintf(
		"followed beside the three other sites: its harvest took %.1f s (%s); harvested again by serve beside them: %.1f s (%s); from the site's first request to its last answer, at the default --page-timeout (15 s)",
		dripFollow.Seconds(), requests(dripFollowRequests), drip.busy().Seconds(), requests(drip.requests.Load())), "≤ 2 min a harvest",
		check(dripFollow > 0 && dripFollow <= harvestTimeTarget && drip.busy() <= harvestTimeTarget && drip.bounded())}
	watched := func(s *hostileSite, scenario, what string, target int) (Row, error) {
		n, err := watchedPages(ctx, dbPath, s.base)
		if err != nil {
			return Row{}, err
		}
		return Row{scenario, fmt.Sprintf("%d pages watched %s, after its follow and one harvest (above)%s", n, what, s.note()),
			fmt.Sprintf("≤ %d", target), check(n > 0 && n <= target && s.bounded())}, nil
	}
	sessionRow, err := watched(session, "7. hostile: session ids in every link (`;jsessionid=`, `?PHPSESSID=`, `/s/ID/`)",
		"of a site of 10 pages and its home page", sessionTarget)
	if err != nil {
		return nil, err
	}
	softRow, err := watched(soft, "7. hostile: a soft 404 (any address answers 200 with made-up text and links)",
		"of a home page linking 3 pages", soft404Target)
	if err != nil {
		return nil, err
	}
	return append([]Row{dripRow, sessionRow, softRow}, rows...), nil
}

// watchedPages counts the pages watched in the collections of the site at
// base.
func watchedPages(ctx context.Context, path, base string) (int, error) {
	d, err := db.Open(ctx, path)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	sites, err := d.Sites(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range sites {
		if !strings.HasPrefix(s.URL, base+"/") {
			continue
		}
		cols, err := d.Collections(ctx, db.CollectionFilter{SiteID: s.ID})
		if err != nil {
			return 0, err
		}
		for _, c := range cols {
			list, err := d.WatchedPages(ctx, c.ID)
			if err != nil {
				return 0, err
			}
			n += len(list)
		}
	}
	return n, nil
}

// requests writes a count of requests.
func requests(n int64) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}
