package follow

import (
	"context"
	"strconv"

	"tidings/db"
	"tidings/worker"
)

// HarvestNow harvests a site in the background for a person who asked,
// at most once per HarvestNowEvery for each site whoever asks (adding a
// page to it counts); a *WaitError says how long until it may be again.
// It waits for a free worker and for its host.
func (s *Service) HarvestNow(userID int64, site db.Site) error {
	if ok, wait := s.harvestNow.allow(site.ID, s.opts.Now()); !ok {
		return &WaitError{wait}
	}
	s.mu.Lock()
	s.harvesting[site.ID] = true
	s.mu.Unlock()
	s.harvests.Push(worker.Task{
		Key: "harvest " + strconv.FormatInt(site.ID, 10), User: userID, Host: worker.HostOf(site.URL),
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
// for a site.
func (s *Service) Harvesting(siteID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.harvesting[siteID]
}
