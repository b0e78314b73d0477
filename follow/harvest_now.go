package follow

import (
	"context"
	"strconv"

	"tidings/db"
	"tidings/urls"
	"tidings/worker"
)

// HarvestNow harvests a site in the background for a person who asked,
// at most once per HarvestNowEvery for each site whoever asks (adding a
// page to it counts), and within the person's quotas: a *WaitError says
// how long until the site may be read again, a *QuotaError which quota
// the person reached. It waits for a free worker and for its host.
func (s *Service) HarvestNow(ctx context.Context, userID int64, site db.Site) error {
	if err := s.allowHarvest(ctx, userID, site.ID); err != nil {
		return err
	}
	if s.opts.NoBackground {
		// The workers' schedulers take it at their next look.
		return s.store.SetNextHarvest(ctx, site.ID, s.opts.Now())
	}
	s.mu.Lock()
	s.harvesting[site.ID] = true
	s.mu.Unlock()
	s.harvests.Push(worker.Task{
		Key: "harvest " + strconv.FormatInt(site.ID, 10), User: userID, Host: urls.HostKey(site.URL),
		Run: func(ctx context.Context) {
			defer func() {
				s.mu.Lock()
				delete(s.harvesting, site.ID)
				s.mu.Unlock()
			}()
			if _, err := s.h.HarvestSite(ctx, site); err != nil {
				s.opts.Logger.Warn("harvest on request", "site", site.URL, "error", err)
			}
		},
	})
	return nil
}

// Harvesting reports whether a harvest asked for is waiting or running
// for a site. With NoBackground, the workers' harvests are not known
// here: a site still due is taken for one waiting for a worker, or being
// harvested by one.
func (s *Service) Harvesting(ctx context.Context, siteID int64) bool {
	if s.opts.NoBackground {
		site, err := s.store.SiteByID(ctx, siteID)
		return err == nil && site.UnfollowedAt == nil && (site.NextHarvestAt == nil || !site.NextHarvestAt.After(s.opts.Now()))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.harvesting[siteID]
}

// allowHarvest applies the limits of a harvest a person asks for: their
// quotas, then the site's own limit; only a harvest both allow counts.
func (s *Service) allowHarvest(ctx context.Context, userID, siteID int64) error {
	if err := s.checkHarvest(ctx, userID); err != nil {
		return err
	}
	if ok, wait := s.harvestNow.allow(siteID, s.opts.Now()); !ok {
		return &WaitError{wait}
	}
	s.harvestAsked(userID)
	return nil
}
