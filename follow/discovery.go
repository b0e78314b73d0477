package follow

import (
	"context"
	"errors"
	"strconv"
	"time"

	"tidings/db"
	"tidings/urls"
	"tidings/worker"
)

// pending is a stored discovery ready to run: its address normalised
// once, and the site it adds a page to when Add found that out.
type pending struct {
	d    db.Discovery
	addr Address
	// err: the stored address is not one, and the discovery fails.
	err error
	// site, when set, is the stored site the address adds a page to: it
	// is refollowed without looking it up again.
	site *db.Site
}

// resumed prepares a discovery stored as pending by an earlier run.
func resumed(d db.Discovery) pending {
	a, err := ParseAddress(d.InputURL)
	return pending{d: d, addr: a, err: err}
}

// discover queues a stored discovery in its person's line, on the host of
// its site.
func (s *Service) discover(p pending) {
	if s.opts.NoBackground {
		return // stored: a worker takes it
	}
	host := urls.HostKey(p.addr.Root)
	if p.err != nil {
		host = p.d.InputURL
	}
	s.discoveries.Push(worker.Task{
		Key: "discovery " + strconv.FormatInt(p.d.ID, 10), User: p.d.UserID, Host: host,
		Run: func(ctx context.Context) { s.runDiscovery(ctx, p) },
	})
}

// runDiscovery works out a discovery's outcome and stores it; when ctx
// ends first, the discovery stays pending, to be resumed at the next
// start.
//
// It runs only under its claim: another process sharing the database may
// have queued it too, and one that died running it leaves its claim to
// expire.
func (s *Service) runDiscovery(ctx context.Context, p pending) {
	if !s.claim(ctx, p.d.ID) {
		return
	}
	stop := s.keepClaim(ctx, p.d.ID)
	defer stop()
	status, siteID, msg := s.discovered(ctx, p)
	if ctx.Err() != nil {
		return
	}
	if err := s.store.FinishDiscovery(ctx, p.d.ID, status, siteID, msg); err != nil {
		s.opts.Logger.Error("finish discovery", "id", p.d.ID, "error", err)
	}
}

// discovered follows a discovery's address. A site tidings already knows
// is followed without fetching anything (it is harvested on its
// schedule), unless the address adds a page to what it watches of it.
func (s *Service) discovered(ctx context.Context, p pending) (status string, siteID int64, msg string) {
	if p.err != nil {
		return db.DiscoveryFailed, 0, p.err.Error()
	}
	site, a := p.site, p.addr
	if site == nil {
		// Looked up when it runs, not when queued: another person's
		// discovery of the same site may have stored it meanwhile.
		known, used, err := s.known(ctx, a)
		switch {
		case err == nil && !s.addsPage(ctx, known.ID, used.Input):
			if ok, _ := s.store.Follows(ctx, p.d.UserID, known.ID); ok {
				return db.DiscoveryAlready, known.ID, "already followed"
			}
			return db.DiscoveryFollowed, known.ID, "followed " + known.URL
		case err == nil:
			site, a = &known, used
		case !errors.Is(err, db.ErrNotFound):
			return db.DiscoveryFailed, 0, err.Error()
		}
	}
	var rep *SiteReport
	var reached Reached
	var err error
	if site != nil {
		// What it harvests of a site it knows is its own report to read
		// on the site's page: the follow itself succeeded.
		if rep, err = s.h.Refollow(ctx, *site, a.Input); rep != nil {
			err = nil
		}
	} else if rep, reached, err = s.followNew(ctx, a); errors.Is(err, db.ErrAlreadyExists) {
		err = nil // stored meanwhile by another follow, and harvested
	}
	if rep == nil || err != nil {
		if err == nil {
			err = errors.New("nothing was found")
		}
		return db.DiscoveryFailed, 0, err.Error()
	}
	msg = "found " + plural(len(rep.Collections), "collection", "collections")
	if say := reached.Say(); say != "" {
		msg += "; " + say
	}
	if rep.Run.Error != "" {
		msg += "; " + rep.Run.Error
	}
	return db.DiscoveryFollowed, rep.Site.ID, msg
}

// addsPage: following the address changes what tidings watches of a site
// it knows (see addsWatchedPage), so it is fetched. Should that not be
// known, the site is followed as it is.
func (s *Service) addsPage(ctx context.Context, siteID int64, input string) bool {
	adds, err := s.addsWatchedPage(ctx, siteID, input)
	return err == nil && adds
}

// claim claims a discovery for this process until worker.LeaseTTL from
// now; false when another process has it, or it is pending no more.
func (s *Service) claim(ctx context.Context, id int64) bool {
	ok, err := s.claimOnce(ctx, id)
	return ok && err == nil
}

func (s *Service) claimOnce(ctx context.Context, id int64) (bool, error) {
	now := s.opts.Now()
	ok, err := s.store.ClaimDiscovery(ctx, id, s.holder, now, now.Add(worker.LeaseTTL))
	if err != nil && ctx.Err() == nil {
		s.opts.Logger.Error("claim discovery", "id", id, "error", err)
	}
	return ok, err
}

// keepClaim renews a discovery's claim while it runs, until stop.
func (s *Service) keepClaim(ctx context.Context, id int64) (stop func()) {
	return worker.Renew(ctx, worker.LeaseTTL/3, func() (bool, error) { return s.claimOnce(ctx, id) }, func() {
		s.opts.Logger.Warn("lost the claim of a discovery while running it", "id", id)
	})
}

// poll queues, every PollEvery until ctx ends, the discoveries no
// process has claimed: stored by a web process that runs no background
// work, or left by a process that died.
func (s *Service) poll(ctx context.Context) {
	t := time.NewTicker(s.opts.PollEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		open, err := s.store.ClaimableDiscoveries(ctx, s.opts.Now())
		if err != nil {
			if ctx.Err() == nil {
				s.opts.Logger.Error("look for discoveries", "error", err)
			}
			continue
		}
		for _, d := range open {
			s.discover(resumed(d))
		}
	}
}
