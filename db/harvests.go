package db

import (
	"context"
	"fmt"
	"slices"
)

// Harvest is one harvest of a site as people see it: the site-level run
// (discovery, the Source Description), then the runs of its collections.
type Harvest struct {
	// Runs are in the order stored; the first is the site-level run,
	// unless the harvest's site-level run is older than what was kept.
	Runs []Run
}

// maxHistoryRuns bounds the runs Harvests reads, whatever the number of
// collections: a site declaring hundreds of them shows fewer harvests.
const maxHistoryRuns = 2000

// Harvests returns a site's newest harvests, newest first, at most
// limit. A harvest stores its site-level run first and its collections'
// runs after it; a site-level run started at the same time as the one
// before it is that harvest's too (it says the harvest was cut short).
func (d *DB) Harvests(ctx context.Context, siteID int64, limit int) ([]Harvest, error) {
	runs, err := queryAll(ctx, d, fmt.Sprintf("load harvests of site %d", siteID), `
SELECT id, site_id, COALESCE(collection_id, 0), started_at, finished_at, documents, not_modified, changes, backfilled, lastmod_only, warnings, error,
	following, pages
FROM runs WHERE site_id = ?1 AND id >= COALESCE(
	(SELECT min(id) FROM runs WHERE site_id = ?1 AND collection_id IS NULL GROUP BY started_at ORDER BY min(id) DESC LIMIT 1 OFFSET ?2), 0)
ORDER BY id DESC LIMIT ?3`, scanRun, siteID, max(limit, 1)-1, maxHistoryRuns)
	if err != nil {
		return nil, err
	}
	slices.Reverse(runs)
	var out []Harvest
	for _, r := range runs {
		if n := len(out); n > 0 && !startsHarvest(out[n-1], r) {
			out[n-1].Runs = append(out[n-1].Runs, r)
			continue
		}
		out = append(out, Harvest{Runs: []Run{r}})
	}
	slices.Reverse(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// startsHarvest reports whether r, stored after h's runs, begins another
// harvest: a site-level run, unless it is h's cut short.
func startsHarvest(h Harvest, r Run) bool {
	if r.CollectionID != 0 {
		return false
	}
	first := h.Runs[0]
	return first.CollectionID != 0 || !first.StartedAt.Equal(r.StartedAt)
}
