package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Scenario 9's big sites: a changed page should be found by the first
// harvest after it changed on sites of any size tidings accepts (issue
// 23). Sitemap sites of bigPages pages, of three kinds of sitemap (pages
// dated by their own lastmod, every lastmod stamped with the build, none
// dated), are followed and brought to a text of every page without a host
// delay and with a budget of page reads that covers them; then bigRate of
// their pages change, and each site's next harvest is measured on its
// own, at tidings' default politeness and budget.
const (
	bigPages = 2000
	bigRate  = 0.05
)

// bigVariants are the fleetsim sitemap variants measured, by name, with
// what their dates say.
var bigVariants = []struct{ name, dates string }{
	{"wordpress", "its pages' own lastmods"},
	{"hugo", "every lastmod the build's"},
	{"sphinx-project", "no lastmod"},
}

// bigResult is one big site's measured harvest.
type bigResult struct {
	variant, dates string
	run            runResult
	st             stats
	revised, found int
	spurious       int
}

func (h *harness) anyBigSites(ctx context.Context, seed int64) ([]Row, error) {
	// fleetsim gives its sitemap sites the six variants in turn.
	fleet, err := startFleet(ctx, h.fleetsim, seed, 6, "--kinds", "sitemap=1",
		"--site-pages", fmt.Sprintf("%d-%d", bigPages, bigPages), "--no-validators", "0")
	if err != nil {
		return nil, err
	}
	defer fleet.close()
	byVariant := map[string]fleetSite{}
	for _, s := range fleet.sites {
		byVariant[s.variant] = s
	}
	var urls []string
	for _, v := range bigVariants {
		s, ok := byVariant[v.name]
		if !ok {
			return nil, fmt.Errorf("fleetsim served no %s site", v.name)
		}
		urls = append(urls, s.url)
	}
	dbPath := filepath.Join(h.dir, "anybig.db")
	setup := h.env(dbPath, "TIDINGS_HOST_DELAY=0s", fmt.Sprintf("TIDINGS_PAGE_FETCHES=%d", 2*bigPages))
	fmt.Fprintf(h.stderr, "scenario 9: %d sitemap sites of %d pages, followed and read whole\n", len(urls), bigPages)
	cmd := exec.CommandContext(ctx, h.bin, "follow", "--from", "-")
	cmd.Env = setup
	cmd.Stdin = strings.NewReader(strings.Join(urls, "\n") + "\n")
	if res, err := runMeasured(ctx, cmd, anyFollowTimeout, rssGuard); err != nil || res.exit != 0 {
		return nil, fmt.Errorf("follow of the big sites: exit %d, %v: %s", res.exit, err, res.output)
	}
	for range 2 {
		cmd := exec.CommandContext(ctx, h.bin, "harvest", "--all")
		cmd.Env = setup
		if res, err := runMeasured(ctx, cmd, anyCycleTimeout, rssGuard); err != nil || res.exit != 0 {
			return nil, fmt.Errorf("harvest of the big sites: exit %d, %v: %s", res.exit, err, res.output)
		}
	}

	fleet.send(fmt.Sprintf("revise %g", bigRate))
	var revised []string
	if err := json.Unmarshal([]byte(fleet.send("revised")), &revised); err != nil {
		return nil, fmt.Errorf("fleetsim revised: %w", err)
	}
	var rows []Row
	for i, v := range bigVariants {
		fmt.Fprintf(h.stderr, "scenario 9: the %s site's harvest after %g of its pages changed\n", v.name, bigRate)
		r, err := h.bigHarvest(ctx, fleet, dbPath, urls[i], revised)
		if err != nil {
			return nil, err
		}
		r.variant, r.dates = v.name, v.dates
		rows = append(rows, r.row())
	}
	return rows, nil
}

// bigHarvest harvests one site at the defaults and counts what it found
// of the pages revised on it.
func (h *harness) bigHarvest(ctx context.Context, fleet *fleetProc, dbPath, site string, revised []string) (bigResult, error) {
	var r bigResult
	mine := map[string]bool{}
	for _, u := range revised {
		if strings.HasPrefix(u, origin(site)+"/") {
			mine[u] = true
		}
	}
	r.revised = len(mine)
	lastID, err := maxChangeID(ctx, dbPath)
	if err != nil {
		return r, err
	}
	fleet.send("reset")
	cmd := exec.CommandContext(ctx, h.bin, "harvest", "--site", site)
	cmd.Env = h.env(dbPath)
	if r.run, err = runMeasured(ctx, cmd, anyCycleTimeout, rssGuard); err != nil {
		return r, err
	}
	if r.st, err = fleet.stats(); err != nil {
		return r, err
	}
	found, err := changesSince(ctx, dbPath, lastID)
	if err != nil {
		return r, err
	}
	got := map[string]bool{}
	for _, c := range found {
		switch {
		case mine[c.url] && !got[c.url]:
			got[c.url] = true
			r.found++
		case !mine[c.url]:
			r.spurious++
		}
	}
	return r, nil
}

func (r bigResult) row() Row {
	delay := time.Duration(r.st.Requests) * hostDelay
	ok := r.run.exit == 0 && r.revised > 0 && r.found*100 >= anyFound*r.revised && r.spurious == 0 && r.run.wall < anyCycle
	status := ""
	if r.run.exit != 0 {
		status = fmt.Sprintf("; exit %d", r.run.exit)
	}
	return Row{
		Scenario: "9. follow any site: a site of " + strconv.Itoa(bigPages) + " pages, " + strconv.Itoa(r.revised) + " changed (" + r.dates + ")",
		Figure: fmt.Sprintf("the harvest after: %d of %d revised pages found, %d changes on pages not revised; %d requests (%d × 304, %d pages) in %.1f s, of which the host delay alone is %.1f s (requests × %s); peak RSS %s%s",
			r.found, r.revised, r.spurious, r.st.Requests, r.st.NotModified, r.st.Pages, r.run.wall.Seconds(), delay.Seconds(), hostDelay, mb(r.run.peak), status),
		Target: fmt.Sprintf("≥ %d %% found, 0 on pages not revised, < %.0f s", anyFound, anyCycle.Seconds()),
		Pass:   &ok,
	}
}
