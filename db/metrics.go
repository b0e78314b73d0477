package db

import (
	"context"
	"fmt"
	"time"
)

// Schedule is where the followed sites stand in the harvest schedule, for
// the metrics.
type Schedule struct {
	Sites   int // every followed site
	Due     int // next harvest at or before now, or never harvested
	Overdue int // due since before the overdue cut-off
}

// Schedule counts the sites, those due at now, and those overdue: due
// since before overdueBefore (a site never harvested counts from when it
// was followed).
func (d *DB) Schedule(ctx context.Context, now, overdueBefore time.Time) (Schedule, error) {
	var s Schedule
	err := d.r.QueryRowContext(ctx, d.eng.pick(`SELECT count(*),
		coalesce(sum(next_harvest_at IS NULL OR next_harvest_at <= ?), 0),
		coalesce(sum(coalesce(next_harvest_at, created_at) <= ?), 0)
		FROM sites`, `SELECT count(*),
		count(*) FILTER (WHERE next_harvest_at IS NULL OR next_harvest_at <= ?),
		count(*) FILTER (WHERE coalesce(next_harvest_at, created_at) <= ?)
		FROM sites`), fmtTime(now), fmtTime(overdueBefore)).Scan(&s.Sites, &s.Due, &s.Overdue)
	if err != nil {
		return Schedule{}, fmt.Errorf("db: count due sites: %w", err)
	}
	return s, nil
}
