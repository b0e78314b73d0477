package web

import (
	"context"
	"errors"
	"sync"

	"tidings/db"
	"tidings/harvest"
)

// maxDiscoveries bounds the discoveries running at once, so an OPML import
// of hundreds of sites does not open hundreds of connections.
const maxDiscoveries = 4

// jobs runs discoveries in the background, a few at a time, taking turns
// between users (see discoveryQueue). Pending discoveries are stored, so a
// restart resumes them.
type jobs struct {
	s       *Server
	queue   *discoveryQueue
	wg      sync.WaitGroup
	mu      sync.Mutex
	ctx     context.Context
	workers int // running, at most maxDiscoveries
	// harvests are the sites harvested on request right now.
	harvests map[int64]bool
}

func newJobs(s *Server) *jobs {
	return &jobs{s: s, queue: newDiscoveryQueue(), ctx: context.Background(), harvests: map[int64]bool{}}
}

// start sets the context jobs run under and resumes stored pending
// discoveries.
func (j *jobs) start(ctx context.Context) {
	j.mu.Lock()
	j.ctx = ctx
	j.mu.Unlock()
	pending, err := j.s.store.PendingDiscoveries(ctx)
	if err != nil {
		j.s.opts.Logger.Error("resume discoveries", "error", err)
		return
	}
	for _, d := range pending {
		j.discover(d)
	}
}

func (j *jobs) wait() { j.wg.Wait() }

// spawn runs fn in the background under the jobs' context.
func (j *jobs) spawn(fn func(ctx context.Context)) {
	j.mu.Lock()
	ctx := j.ctx
	j.mu.Unlock()
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		fn(ctx)
	}()
}

// discover queues one stored discovery and starts a worker if one is free.
func (j *jobs) discover(d db.Discovery) {
	if !j.queue.push(d) {
		return
	}
	j.mu.Lock()
	if j.workers >= maxDiscoveries {
		j.mu.Unlock()
		return
	}
	j.workers++
	j.mu.Unlock()
	j.spawn(j.work)
}

// work runs queued discoveries until none is left or ctx ends; what is
// left then stays pending in the database.
func (j *jobs) work(ctx context.Context) {
	for ctx.Err() == nil {
		j.mu.Lock()
		d, ok := j.queue.pop()
		if !ok {
			// Under the lock: a discovery pushed now sees this worker gone
			// and starts another.
			j.workers--
			j.mu.Unlock()
			return
		}
		j.mu.Unlock()
		j.run(ctx, d)
		j.queue.done(d.ID)
	}
	j.mu.Lock()
	j.workers--
	j.mu.Unlock()
}

func (j *jobs) run(ctx context.Context, d db.Discovery) {
	status, siteID, msg := j.follow(ctx, d)
	if ctx.Err() != nil {
		return // stays pending; resumed at the next start
	}
	if err := j.s.store.FinishDiscovery(ctx, d.ID, status, siteID, msg); err != nil {
		j.s.opts.Logger.Error("finish discovery", "id", d.ID, "error", err)
	}
}

// follow works out a discovery's outcome. A site tidings already knows is
// followed without fetching anything: it is harvested on its schedule.
func (j *jobs) follow(ctx context.Context, d db.Discovery) (status string, siteID int64, msg string) {
	root, err := harvest.SiteRoot(d.InputURL)
	if err != nil {
		return db.DiscoveryFailed, 0, err.Error()
	}
	if site, err := j.s.store.SiteByURL(ctx, root); err == nil && !j.addsPage(ctx, site.ID, d.InputURL) {
		if ok, _ := j.s.store.Follows(ctx, d.UserID, site.ID); ok {
			return db.DiscoveryAlready, site.ID, "already followed"
		}
		return db.DiscoveryFollowed, site.ID, "followed " + site.URL
	}
	rep, err := j.s.opts.Harvester.Follow(ctx, d.InputURL)
	if rep == nil || (err != nil && !errors.Is(err, db.ErrAlreadyExists)) {
		if err == nil {
			err = errors.New("nothing was found")
		}
		return db.DiscoveryFailed, 0, err.Error()
	}
	msg = "found " + plural(len(rep.Collections), "collection", "collections")
	if rep.Run.Error != "" {
		msg += "; " + rep.Run.Error
	}
	return db.DiscoveryFollowed, rep.Site.ID, msg
}

// harvest harvests a site in the background.
func (j *jobs) harvest(site db.Site) {
	j.mu.Lock()
	j.harvests[site.ID] = true
	j.mu.Unlock()
	j.spawn(func(ctx context.Context) {
		defer func() {
			j.mu.Lock()
			delete(j.harvests, site.ID)
			j.mu.Unlock()
		}()
		if _, err := j.s.opts.Harvester.HarvestSite(ctx, site); err != nil {
			j.s.opts.Logger.Warn("harvest on request", "site", site.URL, "error", err)
		}
	})
}

// harvesting reports whether a harvest asked for is running for a site.
func (j *jobs) harvesting(siteID int64) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.harvests[siteID]
}

// addsPage: following the address changes what tidings watches of a site
// it knows (see addsWatchedPage), so it is fetched. Should that not be
// known, the site is followed as it is.
func (j *jobs) addsPage(ctx context.Context, siteID int64, rawURL string) bool {
	adds, err := j.s.addsWatchedPage(ctx, siteID, rawURL)
	return err == nil && adds
}
