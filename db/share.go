package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Share is what PruneToShare keeps each site within.
type Share struct {
	// Bytes is what one site may store, as MeasureSites counts it; 0 is
	// no limit.
	Bytes int64
	// Keep is how many of each collection's newest changes stay whatever
	// the share, as Retention.Keep; at least one.
	Keep int
}

// SharePruned counts what PruneToShare deleted.
type SharePruned struct {
	Sites int // sites that lost changes
	Pruned
	// Over counts the sites still over the share after it: what they
	// must keep (each collection's newest changes, the page snapshots
	// the next harvest compares with) is more than the share.
	Over int
}

// ShareCut is the last time a site was pruned to stay within its share.
type ShareCut struct {
	SiteID int64
	At     time.Time // when
	Share  int64     // the share then, in bytes
	// Until is the newest change time its collections have lost, to the
	// share or to the retention.
	Until time.Time
}

// farFuture is a Retention.Before that lets everything but what a
// collection must keep go.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// PruneToShare deletes, of each site that stored more than s.Bytes when
// last measured, its oldest changes, across its collections, until what
// they took is what the site stores beyond the share; then the runs left
// without changes and the snapshots nothing needs any more, as
// PruneHistory does. What PruneHistory keeps, this keeps too: each
// collection's newest s.Keep changes, those at or after its watermark,
// and the snapshots the next harvest compares with. Each site pruned is
// measured again, and remembers the cut (ShareCutOf); its collections
// remember the newest change they lost (PrunedUntil), so that the feeds
// say where their history ends. Measure first (MeasureSites): a site
// harvested since its last measure waits for the next sweep.
func (d *DB) PruneToShare(ctx context.Context, s Share, now time.Time) (SharePruned, error) {
	var sp SharePruned
	if s.Bytes <= 0 {
		return sp, nil
	}
	s.Keep = max(s.Keep, 1)
	if err := d.forgetCuts(ctx); err != nil {
		return sp, err
	}
	type over struct{ id, bytes int64 }
	sites, err := queryAll(ctx, d, "list sites over their share", `
SELECT id, stored_bytes FROM sites WHERE history_deleted_at IS NULL AND measured_at IS NOT NULL AND stored_bytes > ?
ORDER BY stored_bytes DESC, id`, func(row scanner) (over, error) {
		var o over
		return o, row.Scan(&o.id, &o.bytes)
	}, s.Bytes)
	if err != nil {
		return sp, err
	}
	for _, o := range sites {
		p, err := d.pruneSiteToShare(ctx, o.id, o.bytes-s.Bytes, s, now)
		sp.Changes += p.Changes
		sp.Runs += p.Runs
		sp.Snapshots += p.Snapshots
		sp.Collections += p.Collections
		if p.Changes > 0 {
			sp.Sites++
		}
		if err != nil {
			return sp, fmt.Errorf("db: prune site %d to its share: %w", o.id, err)
		}
		var left int64
		if err := d.r.QueryRowContext(ctx, `SELECT stored_bytes FROM sites WHERE id = ?`, o.id).Scan(&left); err != nil {
			return sp, fmt.Errorf("db: prune site %d to its share: %w", o.id, err)
		}
		if left > s.Bytes {
			sp.Over++
		}
	}
	return sp, nil
}

// pruneSiteToShare deletes a site's oldest changes that took excess
// bytes, with what goes with them, records the cut and measures the site
// again.
func (d *DB) pruneSiteToShare(ctx context.Context, siteID, excess int64, s Share, now time.Time) (Pruned, error) {
	var p Pruned
	cols, err := queryAll(ctx, d, "list the site's collections", `SELECT id FROM collections WHERE site_id = ? ORDER BY id`, scanID, siteID)
	if err != nil {
		return p, err
	}
	before, ok, err := d.shareCutoff(ctx, cols, excess, s.Keep)
	if err != nil || !ok {
		return p, err
	}
	if err := d.pruneCollections(ctx, cols, Retention{Before: before, Keep: s.Keep}, &p); err != nil {
		return p, err
	}
	if p.Changes == 0 {
		return p, d.measureSite(ctx, siteID, now)
	}
	k, err := d.pruneSnapshots(ctx, siteID)
	p.Snapshots += k
	if err != nil {
		return p, fmt.Errorf("prune the snapshots: %w", err)
	}
	err = d.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
INSERT INTO share_cuts (site_id, cut_at, share_bytes, pruned_until)
	SELECT CAST(?1 AS BIGINT), ?2, CAST(?3 AS BIGINT), max(pruned_until) FROM collections WHERE site_id = ?1 AND pruned_until IS NOT NULL
ON CONFLICT (site_id) DO UPDATE SET cut_at = excluded.cut_at, share_bytes = excluded.share_bytes, pruned_until = excluded.pruned_until`,
			siteID, fmtTime(now), s.Bytes)
		return err
	})
	if err != nil {
		return p, fmt.Errorf("record the cut: %w", err)
	}
	return p, d.measureSite(ctx, siteID, now)
}

// shareCutoff returns the Retention.Before past which the oldest changes
// of the collections cols, of those a retention may delete, took at
// least excess bytes; all of those when they took less. ok is false when
// there are none.
func (d *DB) shareCutoff(ctx context.Context, cols []int64, excess int64, keep int) (before time.Time, ok bool, err error) {
	took := map[string]int64{}
	for _, id := range cols {
		cond, args, err := pruneCond(ctx, d.r, id, Retention{Before: farFuture, Keep: keep})
		if err != nil {
			return before, false, err
		}
		if cond == "" {
			continue
		}
		type at struct {
			when  timeText
			bytes int64
		}
		list, err := queryAll(ctx, d, "measure the changes a share may prune",
			`SELECT ch.datetime, sum(`+changeBytes+`) FROM changes ch WHERE `+cond+` GROUP BY ch.datetime`,
			func(row scanner) (at, error) {
				var a at
				return a, row.Scan(&a.when, &a.bytes)
			}, args...)
		if err != nil {
			return before, false, err
		}
		for _, a := range list {
			took[a.when.String] += a.bytes
		}
	}
	if len(took) == 0 {
		return before, false, nil
	}
	times := slices.Sorted(maps.Keys(took))
	last := times[len(times)-1]
	var sum int64
	for _, t := range times {
		if sum += took[t]; sum >= excess {
			last = t
			break
		}
	}
	at, err := parseTime(last)
	if err != nil {
		return before, false, err
	}
	// Before is exclusive: the changes of that instant go too, the next
	// instant a stored time can hold being a microsecond on (fmtTime).
	return at.Add(time.Microsecond), true, nil
}

// forgetCuts forgets the cuts of sites whose history has since been
// deleted whole: nothing they keep is cut any more.
func (d *DB) forgetCuts(ctx context.Context) error {
	var found bool
	err := d.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM share_cuts k WHERE `+cutGone+`)`).Scan(&found)
	if err != nil || !found {
		return err
	}
	return d.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM share_cuts AS k WHERE `+cutGone)
		return err
	})
}

// cutGone is true of a cut k whose site's collections have lost nothing.
const cutGone = `NOT EXISTS (SELECT 1 FROM collections WHERE site_id = k.site_id AND pruned_until IS NOT NULL)`

const cutCols = `SELECT k.site_id, k.cut_at, k.share_bytes, k.pruned_until FROM share_cuts k WHERE NOT ` + cutGone

func scanCut(row scanner) (ShareCut, error) {
	var c ShareCut
	return c, row.Scan(&c.SiteID, timeCol{&c.At}, &c.Share, timeCol{&c.Until})
}

// ShareCutOf returns the last time the site was pruned to stay within its
// share, or ErrNotFound when it never was (or its history was deleted
// whole since).
func (d *DB) ShareCutOf(ctx context.Context, siteID int64) (ShareCut, error) {
	c, err := scanCut(d.r.QueryRowContext(ctx, cutCols+` AND k.site_id = ?`, siteID))
	if errors.Is(err, sql.ErrNoRows) {
		return ShareCut{}, ErrNotFound
	}
	if err != nil {
		return ShareCut{}, fmt.Errorf("db: load the share cut of site %d: %w", siteID, err)
	}
	return c, nil
}

// ShareCuts returns the last cut of each site pruned to stay within its
// share, by site id.
func (d *DB) ShareCuts(ctx context.Context) (map[int64]ShareCut, error) {
	list, err := queryAll(ctx, d, "load share cuts", cutCols, scanCut)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]ShareCut, len(list))
	for _, c := range list {
		out[c.SiteID] = c
	}
	return out, nil
}
