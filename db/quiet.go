package db

import (
	"context"
	"fmt"
	"time"
)

// QuietAsk asks when a site changed last before a time.
type QuietAsk struct {
	SiteID int64
	Before time.Time
}

// ChangedBefore says, for each site asked of, when its pages last changed
// before the time asked (the newest stored change of any of its
// collections, history kept as already seen included); a site with none
// is left out. One indexed lookup a site (changes_feed), whose count the
// caller bounds.
func (d *DB) ChangedBefore(ctx context.Context, asks []QuietAsk) (map[int64]time.Time, error) {
	out := map[int64]time.Time{}
	for _, a := range asks {
		var n nullTime
		err := d.r.QueryRowContext(ctx, `
SELECT max(ch.datetime) FROM changes ch JOIN collections col ON col.id = ch.collection_id
WHERE col.site_id = ? AND ch.datetime < ?`, a.SiteID, fmtTime(a.Before)).Scan(&n)
		if err != nil {
			return nil, fmt.Errorf("db: when site %d last changed: %w", a.SiteID, err)
		}
		if n.t != nil {
			out[a.SiteID] = *n.t
		}
	}
	return out, nil
}
