package harvest

import (
	"context"
	"sync"

	"tidings/db"
)

// Batch tunes a harvest of many sites at once (FollowAll, HarvestSites).
type Batch struct {
	// Workers is how many sites are harvested at once; 0 = DefaultWorkers.
	// Two sites of one host never are.
	Workers int
	// Started, when set, hears which site (the address given, or the
	// site's root) a worker has just begun.
	Started func(url string)
	// Done, when set, hears how each site went. Calls to Started and Done
	// never overlap, so they may print without a lock of their own.
	Done func(url string, rep *SiteReport, err error)
}

// serialized returns b's callbacks behind one lock.
func (b Batch) serialized() (started func(string), done func(string, *SiteReport, error)) {
	var mu sync.Mutex
	started = func(u string) {
		if b.Started != nil {
			mu.Lock()
			defer mu.Unlock()
			b.Started(u)
		}
	}
	done = func(u string, rep *SiteReport, err error) {
		if b.Done != nil {
			mu.Lock()
			defer mu.Unlock()
			b.Done(u, rep, err)
		}
	}
	return started, done
}

// HarvestSites harvests the given sites, b.Workers at a time, never two of
// one host at once. It returns when all are done, or when ctx ends and the
// harvests under way have stored what they completed.
func (h *Harvester) HarvestSites(ctx context.Context, sites []db.Site, b Batch) error {
	started, done := b.serialized()
	newHostPool(b.Workers).each(ctx, len(sites), func(i int) string { return hostOf(sites[i].URL) }, func(i int) {
		if ctx.Err() != nil {
			return
		}
		started(sites[i].URL)
		rep, err := h.HarvestSite(ctx, sites[i])
		done(sites[i].URL, rep, err)
	})
	return ctx.Err()
}

// FollowAll follows every address in urls as Follow does, b.Workers at a
// time, never two of one host at once; an address of a site already
// followed (earlier in urls too) harvests it again. An address that is not
// one is reported to Done with its error and a nil report.
func (h *Harvester) FollowAll(ctx context.Context, urls []string, b Batch) error {
	started, done := b.serialized()
	var todo []string
	var hosts []string
	for _, u := range urls {
		root, _, err := NormalizeAddress(u)
		if err != nil {
			done(u, nil, err)
			continue
		}
		todo = append(todo, u)
		hosts = append(hosts, hostOf(root))
	}
	newHostPool(b.Workers).each(ctx, len(todo), func(i int) string { return hosts[i] }, func(i int) {
		if ctx.Err() != nil {
			return
		}
		started(todo[i])
		rep, err := h.Follow(ctx, todo[i])
		done(todo[i], rep, err)
	})
	return ctx.Err()
}
