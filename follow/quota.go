package follow

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// Defaults of the quotas a person has (Options).
const (
	// As many sites as one OPML import takes: a reading list of several
	// hundred sites fits, a scripted flood of follows does not.
	DefaultMaxSitesPerUser = 500
	// Six harvests asked for an hour, whichever the sites: enough to look
	// again at a few sites after changing them, while one person can no
	// longer have a site read every five minutes all day (the limit per
	// site), each read storing what it found.
	DefaultHarvestsPerHour = 6
	// A gigabyte a person: a few hundred sites of ordinary size and a
	// year of their changes, a fraction of a small server's disk.
	DefaultMaxStoredPerUser = 1 << 30
)

// Quota kinds of a QuotaError.
const (
	QuotaSites    = "sites"
	QuotaHarvests = "harvests"
	QuotaStorage  = "storage"
)

// QuotaError: the person is at one of their limits. Message says which,
// and what they can do about it.
type QuotaError struct {
	Kind string // QuotaSites, QuotaHarvests or QuotaStorage
	// Used and Limit: sites followed (waiting ones included), harvests
	// asked for in the last hour, or bytes stored.
	Used, Limit int64
	// Waiting: of the sites Used counts, those waiting to be discovered.
	Waiting int64
	// Wait: for QuotaHarvests, how long until another may be asked for.
	Wait time.Duration
}

// Error says which quota it is.
func (e *QuotaError) Error() string {
	return fmt.Sprintf("follow: %s quota reached: %d of %d", e.Kind, e.Used, e.Limit)
}

// Message is what the person is told.
func (e *QuotaError) Message() string {
	switch e.Kind {
	case QuotaSites:
		follows := "You follow " + plural(int(e.Used-e.Waiting), "site", "sites")
		if e.Waiting > 0 {
			follows += fmt.Sprintf(" and %d more wait to be looked at", e.Waiting)
		}
		return fmt.Sprintf("%s; one person may follow at most %d here. Unfollow a site you no longer read to follow another.", follows, e.Limit)
	case QuotaHarvests:
		return fmt.Sprintf("You have asked for %s in the last hour, the most one person may here; you can ask again in %s. Your sites are still harvested on their schedule.",
			plural(int(e.Used), "harvest", "harvests"), minutes(e.Wait))
	}
	return fmt.Sprintf("The sites you follow store %s here, more than the %s one person may (a site several people follow counts a share to each). "+
		"Until that falls you cannot follow more sites or ask for harvests: unfollow sites you no longer read, or wait for their older changes to be deleted. "+
		"Your sites are still harvested on their schedule.", bytesText(e.Used), bytesText(e.Limit))
}

// minutes says a wait in whole minutes, rounded up: "1 minute", "14 minutes".
func minutes(d time.Duration) string {
	return plural(max(1, int(math.Ceil(d.Minutes()))), "minute", "minutes")
}

// bytesText says a size as people read it: "812 KB", "1.2 GB".
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", (n+1023)>>10)
}

// Limits are the quotas a person has; a limit of 0 is none.
type Limits struct {
	Sites           int
	HarvestsPerHour int
	StoredBytes     int64
}

// Limits returns the quotas each person has, for the admin page.
func (s *Service) Limits() Limits {
	l := Limits{Sites: s.opts.MaxSitesPerUser, HarvestsPerHour: s.opts.HarvestsPerHour, StoredBytes: s.opts.MaxStoredPerUser}
	l.Sites, l.HarvestsPerHour, l.StoredBytes = max(l.Sites, 0), max(l.HarvestsPerHour, 0), max(l.StoredBytes, 0)
	return l
}

// checkRoom returns a *QuotaError when the person may follow no more
// sites: as many followed or waiting to be discovered as they may, or
// more bytes stored.
func (s *Service) checkRoom(ctx context.Context, userID int64) error {
	_, err := s.siteRoom(ctx, userID)
	return err
}

// siteRoom returns how many more sites the person may follow, or a
// *QuotaError when none (math.MaxInt without a limit).
func (s *Service) siteRoom(ctx context.Context, userID int64) (int, error) {
	u, err := s.store.UsageOf(ctx, userID)
	if err != nil {
		return 0, err
	}
	if limit := s.opts.MaxStoredPerUser; limit > 0 && u.Bytes > limit {
		return 0, &QuotaError{Kind: QuotaStorage, Used: u.Bytes, Limit: limit}
	}
	if s.opts.MaxSitesPerUser <= 0 {
		return math.MaxInt, nil
	}
	used := u.Sites + u.Waiting
	if used >= s.opts.MaxSitesPerUser {
		return 0, &QuotaError{Kind: QuotaSites, Used: int64(used), Limit: int64(s.opts.MaxSitesPerUser), Waiting: int64(u.Waiting)}
	}
	return s.opts.MaxSitesPerUser - used, nil
}

// checkHarvest returns a *QuotaError when the person may ask for no
// harvest now: as many in the last hour as they may, or more bytes
// stored. It records nothing (see harvestAsked).
func (s *Service) checkHarvest(ctx context.Context, userID int64) error {
	if n, wait := s.hourly.count(userID, s.opts.Now()); s.opts.HarvestsPerHour > 0 && n >= s.opts.HarvestsPerHour {
		return &QuotaError{Kind: QuotaHarvests, Used: int64(n), Limit: int64(s.opts.HarvestsPerHour), Wait: wait}
	}
	if s.opts.MaxStoredPerUser <= 0 {
		return nil
	}
	u, err := s.store.UsageOf(ctx, userID)
	if err != nil {
		return err
	}
	if u.Bytes > s.opts.MaxStoredPerUser {
		return &QuotaError{Kind: QuotaStorage, Used: u.Bytes, Limit: s.opts.MaxStoredPerUser}
	}
	return nil
}

// CanHarvest returns a *QuotaError when the person may ask for no harvest
// now, for a page to say so again after the request that was refused.
func (s *Service) CanHarvest(ctx context.Context, userID int64) error {
	return s.checkHarvest(ctx, userID)
}

// harvestAsked records a harvest the person asked for.
func (s *Service) harvestAsked(userID int64) { s.hourly.add(userID, s.opts.Now()) }

// window counts each person's actions over the last hour.
type window struct {
	mu   sync.Mutex
	seen map[int64][]time.Time
}

// count returns how many actions key took in the hour before now, and how
// long until the oldest of them is an hour old.
func (w *window) count(key int64, now time.Time) (int, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.prune(key, now)
	if len(list) == 0 {
		return 0, 0
	}
	return len(list), list[0].Add(time.Hour).Sub(now)
}

// add records an action of key at now.
func (w *window) add(key int64, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[key] = append(w.prune(key, now), now)
}

// prune drops key's actions older than an hour, and returns the rest.
func (w *window) prune(key int64, now time.Time) []time.Time {
	list := w.seen[key]
	k := 0
	for k < len(list) && now.Sub(list[k]) >= time.Hour {
		k++
	}
	list = list[k:]
	if len(list) == 0 {
		delete(w.seen, key)
		return nil
	}
	w.seen[key] = list
	return list
}
