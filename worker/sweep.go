package worker

import (
	"context"
	"time"

	"tidings/db"
)

// Retention says how long a sweep keeps history. Zero fields take their
// defaults.
type Retention struct {
	// KeepChangesFor is how long a collection's changes are kept, and its
	// harvest runs, by their dates.
	KeepChangesFor time.Duration
	// KeepChanges is how many of each collection's newest changes are kept
	// whatever their age.
	KeepChanges int
	// Unfollowed is how long the history of a site nobody follows any
	// more is kept before it is deleted whole.
	Unfollowed time.Duration
	// SiteShare is how many bytes one site may store before its oldest
	// changes go, whatever their age (db.PruneToShare); below zero, no
	// limit.
	SiteShare int64
}

// Defaults of Retention.
const (
	// A year of changes: every entry a reader paging back may look for,
	// and what a site's page lists, at a bounded cost: a site changing
	// 100 pages a day stores a few hundred bytes a change once diffs are
	// capped, some 10 to 100 MB a year.
	DefaultKeepChangesFor = 365 * 24 * time.Hour
	// A quiet site's feed keeps its newest hundred changes, two documents
	// of the per-page feed, however old: a feed that emptied itself would
	// look broken.
	DefaultKeepChanges = 100
	// DefaultUnfollowedRetention keeps an unfollowed site's history a
	// month: long enough for someone who left by mistake, or a new
	// person, to follow it again and find its feeds whole.
	DefaultUnfollowedRetention = 30 * 24 * time.Hour
	// DefaultSiteShare is what one site may store, 100 MB: a tenth of a
	// person's default quota, so that one churning site cannot lock its
	// followers out of following more, and a year of an ordinary site's
	// changes (10 to 100 MB, above) fits. A site whose 200 pages change
	// whole at each daily harvest would need 450 MB a year; it keeps its
	// newest changes, some eighty harvests of them.
	DefaultSiteShare = 100 << 20
)

func (r Retention) withDefaults() Retention {
	if r.KeepChangesFor <= 0 {
		r.KeepChangesFor = DefaultKeepChangesFor
	}
	if r.KeepChanges <= 0 {
		r.KeepChanges = DefaultKeepChanges
	}
	if r.Unfollowed <= 0 {
		r.Unfollowed = DefaultUnfollowedRetention
	}
	if r.SiteShare == 0 {
		r.SiteShare = DefaultSiteShare
	}
	return r
}

// Swept is what one sweep did.
type Swept struct {
	// Emptied counts the sites nobody follows whose history went.
	Emptied int
	// Pruned is what went past the retention of the sites followed.
	db.Pruned
	// Measured counts the sites whose stored bytes were measured again.
	Measured int
	// Share is what went of the sites past their share.
	Share db.SharePruned
}

// Sweep is the store's upkeep, which serve's scheduler does every
// DefaultSweepEvery and tidings harvest after its harvests: it deletes
// the history of the sites nobody has followed for r.Unfollowed (they
// are not harvested, and this is when what they stored goes too), then
// of each collection the changes and runs older than r.KeepChangesFor
// but its newest r.KeepChanges changes, and the page snapshots nothing
// needs any more (db.PruneHistory); then it measures what each site
// harvested or pruned since stores, for the quotas and the admin page;
// and last, of each site past r.SiteShare, it deletes the oldest changes
// until it is within it again (db.PruneToShare). A harvest between two
// sweeps adds to a site at most what one harvest stores.
func Sweep(ctx context.Context, store *db.DB, now time.Time, r Retention) (Swept, error) {
	r = r.withDefaults()
	var sw Swept
	var err error
	if sw.Emptied, err = store.DeleteUnfollowedHistory(ctx, now.Add(-r.Unfollowed)); err != nil {
		return sw, err
	}
	if sw.Pruned, err = store.PruneHistory(ctx, db.Retention{Before: now.Add(-r.KeepChangesFor), Keep: r.KeepChanges}); err != nil {
		return sw, err
	}
	if sw.Measured, err = store.MeasureSites(ctx, now); err != nil || r.SiteShare < 0 {
		return sw, err
	}
	sw.Share, err = store.PruneToShare(ctx, db.Share{Bytes: r.SiteShare, Keep: r.KeepChanges}, now)
	return sw, err
}
