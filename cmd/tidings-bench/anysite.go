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

// Scenario 9 follows any site: a fleet of ResourceSync sites, sites with
// only a plain sitemap and sites with none (fleetsim --kinds), each
// followed by its most precise source. anyMix weighs the kinds; a
// ResourceSync site has anyRSPages pages, the others 30 to 200.
const (
	anyMix     = "resourcesync=1,sitemap=2,pages=2"
	anyRSPages = 50
	anyRate    = 0.02
	// anyNoValidators is the fraction of sitemap and pages sites whose
	// server sends no ETag or Last-Modified.
	anyNoValidators = 0.1
	// anyCycle is the target of a harvest of every site after anyRate of
	// the pages changed, with the default host delay.
	anyCycle = 120 * time.Second
	// anyUnchanged is the least share of the requests an unchanged
	// harvest sends to servers with validators that are answered 304.
	anyUnchanged = 0.90
	// hostDelay is tidings' default --host-delay, which scenario 9 keeps.
	hostDelay = 250 * time.Millisecond
	// anyWorkers is how many sites scenario 9 harvests at once, each its
	// own host. Finding every revised page takes a request to every page
	// of a site whose dates say nothing, some 170,000 in all: at 256 at
	// once the host delay alone would take 167 s, past anyCycle whatever
	// tidings did.
	anyWorkers = 512
)

// anyFollowTimeout bounds the first follow, which reads every page of a
// site without a sitemap, 250 ms apart; anyCycleTimeout bounds each
// measured harvest, past its target so that a slow one is still
// measured.
const (
	anyFollowTimeout = 20 * time.Minute
	anyCycleTimeout  = 6 * time.Minute
)

// fleetSite is one line fleetsim printed: the URL to follow and, in a
// fleet of several kinds, what the site is.
type fleetSite struct {
	url        string
	kind       string // resourcesync, sitemap, pages
	variant    string // the sitemap's variant, or "-"
	validators bool
	pages      int
}

// parseSiteLine reads "URL [KIND VARIANT validators|no-validators PAGES]";
// a bare URL is a ResourceSync site, as fleetsim prints them when the
// fleet has no other kind.
func parseSiteLine(line string) (fleetSite, error) {
	f := strings.Fields(line)
	switch len(f) {
	case 1:
		return fleetSite{url: f[0], kind: "resourcesync", variant: "-", validators: true}, nil
	case 5:
		pages, err := strconv.Atoi(f[4])
		if err == nil && (f[3] == "validators" || f[3] == "no-validators") {
			return fleetSite{url: f[0], kind: f[1], variant: f[2], validators: f[3] == "validators", pages: pages}, nil
		}
	}
	return fleetSite{}, fmt.Errorf("fleetsim printed %q, not a site", line)
}

// origin is the scheme and host of a site's URL, which is how tidings'
// `feeds --json` names its site (the root).
func origin(u string) string {
	scheme, rest, _ := strings.Cut(u, "://")
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host
}

// anySite runs scenario 9: follow a fleet of every kind, harvest it
// unchanged twice, then again after anyRate of the pages changed. The
// first harvest after a follow still reads, unconditionally, the pages
// the follow's budget of page reads left unread; the second is an
// unchanged day of a site followed for a while, which the target is about.
func (h *harness) anySite(ctx context.Context, seed int64, sites int) ([]Row, error) {
	fleet, err := startFleet(ctx, h.fleetsim, seed, sites, "--kinds", anyMix, "--collections", "1", "--lists", "2",
		"--entries", strconv.Itoa(anyRSPages), "--pages", strconv.Itoa(anyRSPages), "--no-validators", fmt.Sprint(anyNoValidators), "--recent")
	if err != nil {
		return nil, err
	}
	defer fleet.close()
	dbPath := filepath.Join(h.dir, "anysite.db")
	env := h.env(dbPath)

	fmt.Fprintf(h.stderr, "scenario 9: following %d sites (%s), %d at once\n", sites, anyMix, anyWorkers)
	fleet.send("reset")
	cmd := exec.CommandContext(ctx, h.bin, "follow", "--workers", strconv.Itoa(anyWorkers), "--from", "-")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(strings.Join(fleet.urls, "\n") + "\n")
	follow, err := runMeasured(ctx, cmd, anyFollowTimeout, rssGuard)
	if err != nil {
		return nil, err
	}
	sf, err := fleet.stats()
	if err != nil {
		return nil, err
	}
	feeds, err := feedList(ctx, h.bin, env)
	if err != nil {
		return nil, err
	}

	fmt.Fprintln(h.stderr, "scenario 9: harvesting the unchanged fleet")
	first, s1, err := h.anyHarvest(ctx, fleet, env)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(h.stderr, "scenario 9: harvesting the unchanged fleet again")
	unchanged, su, err := h.anyHarvest(ctx, fleet, env)
	if err != nil {
		return nil, err
	}

	revised := strings.TrimPrefix(fleet.send(fmt.Sprintf("revise %g", anyRate)), "revised ")
	var urls []string
	if err := json.Unmarshal([]byte(fleet.send("revised")), &urls); err != nil {
		return nil, fmt.Errorf("fleetsim revised: %w", err)
	}
	fmt.Fprintf(h.stderr, "scenario 9: %s pages revised; harvesting every site\n", revised)
	lastID, err := maxChangeID(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	changed, sc, err := h.anyHarvest(ctx, fleet, env)
	if err != nil {
		return nil, err
	}
	found, err := changesSince(ctx, dbPath, lastID)
	if err != nil {
		return nil, err
	}
	r := anyResult{
		sites: fleet.sites, workers: anyWorkers, feeds: feeds,
		follow: follow, followStats: sf,
		firstUnchanged: first, firstUnchangedStats: s1,
		unchanged: unchanged, unchangedStats: su,
		cycle: changed, cycleStats: sc, revised: urls, found: found,
	}
	return r.rows(), nil
}

// anyHarvest runs `tidings harvest --all` over the fleet, measured, and
// returns the fleet's counts of its requests.
func (h *harness) anyHarvest(ctx context.Context, fleet *fleetProc, env []string) (runResult, stats, error) {
	fleet.send("reset")
	cmd := exec.CommandContext(ctx, h.bin, "harvest", "--all", "--workers", strconv.Itoa(anyWorkers))
	cmd.Env = env
	res, err := runMeasured(ctx, cmd, anyCycleTimeout, rssGuard)
	if err != nil {
		return res, stats{}, err
	}
	st, err := fleet.stats()
	return res, st, err
}

// feed is one collection of `tidings feeds --json`.
type feed struct {
	Site      string `json:"site"`
	Protocol  string `json:"protocol"`
	Changes   int    `json:"changes"`
	LastError string `json:"last_error"`
}

func feedList(ctx context.Context, bin string, env []string) ([]feed, error) {
	cmd := exec.CommandContext(ctx, bin, "feeds", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("feeds --json: %w", err)
	}
	var list []feed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var f feed
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("feeds --json: %w", err)
		}
		list = append(list, f)
	}
	return list, nil
}
