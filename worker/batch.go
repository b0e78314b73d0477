package worker

import (
	"context"
	"errors"
	"sync"
	"time"

	"tidings/db"
	"tidings/harvest"
)

// Batch tunes a run of many sites at once (tidings follow, tidings
// harvest).
type Batch struct {
	// Workers is how many sites are worked on at once; 0 =
	// DefaultWorkers. Two sites of one host never are.
	Workers int
	// Started, when set, hears which site (the address given, or the
	// site's root) a worker has just begun.
	Started func(url string)
	// Done, when set, hears how each site went. Calls to Started and Done
	// never overlap, so they may print without a lock of their own.
	Done func(url string, rep *harvest.SiteReport, err error)
	// Pool, when set, is the pool whose hosts the batch shares (one
	// shared with other processes, say); else it has one of its own.
	Pool *Pool
}

// Item is one site of a batch.
type Item struct {
	// URL is what Started and Done hear: the address given, or the
	// site's root.
	URL string
	// Host is the site's HostOf: two items of one host never run at once.
	Host string
	// Do does the work.
	Do func(ctx context.Context) (*harvest.SiteReport, error)
}

// Harvester is what the background work needs of harvest.Harvester.
type Harvester interface {
	HarvestSite(ctx context.Context, site db.Site) (*harvest.SiteReport, error)
}

// Run runs items, b.Workers at a time, never two of one host at once, in
// order as far as workers and hosts allow. It returns when all are done,
// or when ctx ends and the items under way have stored what they
// completed.
func (b Batch) Run(ctx context.Context, items []Item) error {
	started, done := b.serialized()
	l := newHostPool(b.Workers)
	if b.Pool != nil {
		l = b.Pool.lane(b.Workers)
	}
	l.each(ctx, len(items), func(i int) string { return items[i].Host }, func(ictx context.Context, i int) {
		if ictx.Err() != nil {
			return
		}
		started(items[i].URL)
		rep, err := items[i].Do(ictx)
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(ictx), ErrLeaseLost) {
			err = ErrLeaseLost
		}
		done(items[i].URL, rep, err)
	})
	return ctx.Err()
}

// serialized returns b's callbacks behind one lock.
func (b Batch) serialized() (started func(string), done func(string, *harvest.SiteReport, error)) {
	var mu sync.Mutex
	started = func(u string) {
		if b.Started != nil {
			mu.Lock()
			defer mu.Unlock()
			b.Started(u)
		}
	}
	done = func(u string, rep *harvest.SiteReport, err error) {
		if b.Done != nil {
			mu.Lock()
			defer mu.Unlock()
			b.Done(u, rep, err)
		}
	}
	return started, done
}

// HarvestSites harvests the given sites with h as a batch.
func HarvestSites(ctx context.Context, h Harvester, sites []db.Site, b Batch) error {
	items := make([]Item, len(sites))
	for i, site := range sites {
		items[i] = Item{URL: site.URL, Host: HostOf(site.URL), Do: func(ctx context.Context) (*harvest.SiteReport, error) {
			return h.HarvestSite(ctx, site)
		}}
	}
	return b.Run(ctx, items)
}

// HarvestDueSites harvests, as a batch, the sites found due at now, each
// only if it still is once its host is held: another process (a worker,
// another harvest) may have harvested it since the list was read. A site
// no longer due is reported to b.Done with neither report nor error.
func HarvestDueSites(ctx context.Context, store *db.DB, h Harvester, sites []db.Site, now func() time.Time, b Batch) error {
	items := make([]Item, len(sites))
	for i, site := range sites {
		items[i] = Item{URL: site.URL, Host: HostOf(site.URL), Do: func(ctx context.Context) (*harvest.SiteReport, error) {
			fresh, err := store.SiteByID(ctx, site.ID)
			if errors.Is(err, db.ErrNotFound) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			if !due(fresh, now()) {
				return nil, nil
			}
			return h.HarvestSite(ctx, fresh)
		}}
	}
	return b.Run(ctx, items)
}
