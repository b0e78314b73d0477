package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Scenario 7's attacks, as the issue "Hardening, round two" measured them.
const (
	longLocBytes   = 45_000_000 // one change list <loc>
	longURLLists   = 24         // change lists of one index,
	longURLEntries = 1000       // of this many changes,
	longURLBytes   = 40_000     // each URL this long: 41 MB a list, under the 50 MB sitemap limit
	arcBytes       = 31_000_000 // an ARC sitemap, most of it one list nobody reads
	robotsOrigins  = 300        // origins, each with
	robotsBytes    = 512 << 10  // a robots.txt this long

	// hostileTimeout bounds each run of follow, and each of serve.
	hostileTimeout = 120 * time.Second
	// hostileWorkers is follow's and serve's --workers for the 300
	// origins: serve's default, as deployed. What is live grows with the
	// harvests under way, each parsing its site's robots.txt, so this is
	// what an operator who raises --workers scales (README, scenario 7).
	// The host delay is 0 instead: it costs minutes of waiting and no
	// memory.
	hostileWorkers = 4
	// feedRequests are asked of serve at once, as readers do.
	feedRequests = 6
	rssTarget    = 300e6
)

// hostileArgs are follow's and serve's settings when they harvest several
// hostile sites at once.
var hostileArgs = []string{"--workers", fmt.Sprint(hostileWorkers), "--host-delay", "0s"}

// attack is one hostile site of scenario 7 and how serve meets it.
type attack struct {
	scenario string
	docs     func(base string) map[string]hostileDoc
	// feeds: serve answers the collection's feeds, feedRequests at once;
	// else serve's scheduler harvests the site again.
	feeds bool
}

func hostileAttacks(at time.Time) []attack {
	return []attack{
		{
			scenario: "7. hostile: a 45 MB `<loc>`",
			feeds:    true,
			docs: func(base string) map[string]hostileDoc {
				list := changeListDoc{base: base, name: "c", entries: 3, urlBytes: 80, longLoc: longLocBytes, at: at}
				return resourceSyncDocs(base, base+"/changes.xml", map[string]hostileDoc{
					"/changes.xml": {"application/xml", list.write},
				})
			},
		},
		{
			scenario: fmt.Sprintf("7. hostile: %d lists of %s URLs of 40 kB", longURLLists, thousands(longURLEntries)),
			feeds:    true,
			docs: func(base string) map[string]hostileDoc {
				docs := map[string]hostileDoc{"/index.xml": {"application/xml", func(w io.Writer) error {
					return writeChangeListIndex(w, base, longURLLists, at)
				}}}
				for i := range longURLLists {
					list := changeListDoc{base: base, name: fmt.Sprint(i), entries: longURLEntries, urlBytes: longURLBytes, at: at}
					docs[fmt.Sprintf("/changes-%d.xml", i)] = hostileDoc{"application/xml", list.write}
				}
				return resourceSyncDocs(base, base+"/index.xml", docs)
			},
		},
		{
			// Named by robots.txt, as the ARC specification suggests for
			// a sitemap outside the well-known places.
			scenario: "7. hostile: a 31 MB ARC sitemap, YAML",
			docs: func(base string) map[string]hostileDoc {
				doc := arcDoc{site: base, size: arcBytes, at: at}
				return map[string]hostileDoc{
					"/robots.txt": {"text/plain", func(w io.Writer) error {
						_, err := fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/arc-sitemap.yaml\n", base)
						return err
					}},
					"/arc-sitemap.yaml": {"application/yaml", doc.writeYAML},
				}
			},
		},
		{
			scenario: "7. hostile: a 31 MB ARC sitemap, JSON",
			docs: func(base string) map[string]hostileDoc {
				doc := arcDoc{site: base, size: arcBytes, at: at}
				return map[string]hostileDoc{"/.well-known/arc-sitemap.json": {"application/json", doc.writeJSON}}
			},
		},
	}
}

// hostile is scenario 7: each attack of the issues "Hardening, round two"
// and "round three" served from loopback, `tidings follow` of it
// measured, then `tidings serve` on the database it left; and the public
// check, through serve, of a site of endless pages.
func (h *harness) hostile(ctx context.Context) ([]Row, error) {
	at := time.Now().UTC().Truncate(time.Second)
	defer func() { fmt.Fprintf(h.stderr, "scenario 7 took %.0f s\n", time.Since(at).Seconds()) }()
	var rows []Row
	for i, a := range hostileAttacks(at) {
		fmt.Fprintf(h.stderr, "scenario 7: %s\n", strings.TrimPrefix(a.scenario, "7. hostile: "))
		more, err := h.hostileSite(ctx, a, filepath.Join(h.dir, fmt.Sprintf("hostile-%d.db", i)))
		if err != nil {
			return nil, err
		}
		rows = append(rows, more...)
	}
	fmt.Fprintf(h.stderr, "scenario 7: %d origins with a robots.txt of %d KiB\n", robotsOrigins, robotsBytes>>10)
	more, err := h.hostileRobots(ctx)
	if err != nil {
		return nil, err
	}
	rows = append(rows, more...)
	if more, err = h.hostileCrawl(ctx); err != nil {
		return nil, err
	}
	rows = append(rows, more...)
	fmt.Fprintf(h.stderr, "scenario 7: sitemaps with a 45 MB <loc>, robots.txt one 36 MB line; %d at once\n", hostileAtOnce)
	if more, err = h.hostileLongLoc(ctx, at); err != nil {
		return nil, err
	}
	rows = append(rows, more...)
	fmt.Fprintln(h.stderr, "scenario 7: a churning site within its share (go test -bench ShareChurn ./worker/)")
	if more, err = churnRows(ctx, h.stderr); err != nil {
		return nil, err
	}
	return append(rows, more...), nil
}

// hostileSite runs one attack: follow the site, then serve what it left.
func (h *harness) hostileSite(ctx context.Context, a attack, dbPath string) ([]Row, error) {
	site, err := startHostileSite(a.docs)
	if err != nil {
		return nil, err
	}
	defer site.close()
	env := h.env(dbPath)
	cmd := exec.Command(h.bin, "follow", site.base+"/")
	cmd.Env = env
	res, err := runMeasured(ctx, cmd, hostileTimeout, rssGuard)
	if err != nil {
		return nil, err
	}
	rows := []Row{followRow(a.scenario, res, fmt.Sprintf("%s sent, database %s", size(site.sent()), size(fileSizes(dbPath, dbPath+"-wal"))))}
	before := site.sent()
	var row Row
	if a.feeds {
		row, err = h.serveFeeds(ctx, a.scenario, env, dbPath)
	} else {
		row, err = h.serveHarvest(ctx, a.scenario, env, dbPath, site.base+"/", nil)
	}
	if err != nil {
		return nil, err
	}
	if !a.feeds {
		row.Figure += fmt.Sprintf("; %s sent", size(site.sent()-before))
	}
	return append(rows, row), nil
}

// followAtOnce follows sites in one `tidings follow --from -` with args,
// and returns the run and how many sites it followed.
func (h *harness) followAtOnce(ctx context.Context, env []string, sites []*hostileSite, args []string) (runResult, int, error) {
	urls := make([]string, len(sites))
	for i, s := range sites {
		urls[i] = s.base + "/"
	}
	cmd := command(h.bin, env, append([]string{"follow", "--from", "-"}, args...)...)
	cmd.Stdin = strings.NewReader(strings.Join(urls, "\n") + "\n")
	res, err := runMeasured(ctx, cmd, hostileTimeout, rssGuard)
	if err != nil {
		return res, 0, err
	}
	followed, _, err := followedSites(ctx, h.bin, env)
	return res, followed, err
}

// command is a tidings command with env, not yet started.
func command(bin string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	return cmd
}

// followRow is the row of one measured follow.
func followRow(scenario string, res runResult, more string) Row {
	return Row{scenario, fmt.Sprintf("follow: peak RSS %s in %.1f s, %s; %s; printed %s",
		mb(res.peak), res.wall.Seconds(), res.ending(), more, codeSpan(firstLine(res.output, 110))), "< 300 MB", check(res.ok() && res.peak < rssTarget)}
}

// fileSizes is the sum of the sizes of the files that exist.
func fileSizes(paths ...string) int64 {
	var n int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// codeSpan quotes text as Markdown code in a table cell.
func codeSpan(s string) string {
	if s == "" {
		return "nothing"
	}
	return "`" + strings.NewReplacer("`", "'", "|", `\|`).Replace(s) + "`"
}

// size writes a byte count in kB or MB, whichever reads better.
func size(n int64) string {
	if n < 1e6 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return mb(n)
}
