package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"tidings/harvest"
)

// The sites of issue 38 ("Hardening, round four"), item 7: one "Add a
// site" must cost a bounded download and a bounded time of a discovery
// worker.
const (
	budgetLinks  = 500 // endless pages one home page links
	dripDocEvery = 500 * time.Millisecond
)

// budgetSite links 500 endless HTML pages.
func budgetSite(string) http.HandlerFunc {
	return endlessLinks("Endless links", budgetLinks, 0)
}

// dripDocSite answers every address, robots.txt first, with a byte every
// 500 ms for as long as anyone reads.
func dripDocSite(string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { drip(w, r, dripDocEvery) }
}

// hostileBudget follows each site with `tidings follow`, a run of its own
// whose reads the kernel counts.
func (h *harness) hostileBudget(ctx context.Context) ([]Row, error) {
	var rows []Row
	site, err := startSite(budgetSite)
	if err != nil {
		return nil, err
	}
	defer site.close()
	env := h.env(filepath.Join(h.dir, "hostile-budget.db"))
	first, err := runMeasured(ctx, command(h.bin, env, "follow", site.base+"/"), hostileTimeout, rssGuard)
	if err != nil {
		return nil, err
	}
	// The budget counts bodies as received; the kernel also counts
	// headers and what the sockets held when tidings stopped reading.
	target := int64(harvest.DefaultMaxSiteBytes + 8<<20)
	rows = append(rows, Row{"7. hostile: a first harvest of a site whose 500 links are endless pages",
		fmt.Sprintf("follow: read %s in %.1f s, %s; the site wrote %s in %s; peak RSS %s; at the default --site-bytes (%s)",
			size(first.read), first.wall.Seconds(), first.ending(), size(site.sent()), requests(site.requests.Load()), mb(first.peak), size(harvest.DefaultMaxSiteBytes)),
		fmt.Sprintf("≤ %s read", size(target)), check(first.ok() && first.read >= 0 && first.read <= target)})

	drip, err := startSite(dripDocSite)
	if err != nil {
		return nil, err
	}
	defer drip.close()
	env = h.env(filepath.Join(h.dir, "hostile-drip-docs.db"))
	run, err := runMeasured(ctx, command(h.bin, env, "follow", drip.base+"/"), hostileTimeout, rssGuard)
	if err != nil {
		return nil, err
	}
	bound := harvest.DefaultDiscoveryDocTimeout
	rows = append(rows, Row{"7. hostile: a site whose every document, robots.txt first, drips a byte every 500 ms",
		fmt.Sprintf("follow: ended in %.1f s, %s, %s; the discovery's time for one document is --discovery-document-timeout (%s)",
			run.wall.Seconds(), run.ending(), requests(drip.requests.Load()), bound),
		fmt.Sprintf("≤ %s", 2*bound), check(run.ok() && run.wall <= 2*bound)})
	return rows, nil
}
