package follow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tidings/db"
)

// Added is what Add did: followed a site tidings knows at once, or queued
// a discovery of the address.
type Added struct {
	// Site is the site followed; zero when a discovery was queued.
	Site db.Site
	// Discovery is the discovery queued; its ID is 0 when the site was
	// followed at once.
	Discovery db.Discovery
}

// ErrAlreadyFollowed: the person follows the site already. Add returns
// the site alongside it.
var ErrAlreadyFollowed = errors.New("follow: the site is followed already")

// AddressError is an address tidings does not follow: not one (a
// *Problem), or one the address policy refuses (a *fetch.AddressError).
type AddressError struct{ Err error }

// Error is the reason the address is refused.
func (e *AddressError) Error() string { return e.Err.Error() }

// Unwrap returns the reason, for errors.As.
func (e *AddressError) Unwrap() error { return e.Err }

// PendingError: the person has as many discoveries waiting as they may.
type PendingError struct {
	Pending int // how many wait
	Max     int // Options.MaxPendingDiscoveries
}

// Error says how many wait.
func (e *PendingError) Error() string {
	return fmt.Sprintf("follow: %d discoveries waiting, at most %d may", e.Pending, e.Max)
}

// WaitError: the site was read on request moments ago; it may be again
// after Wait.
type WaitError struct{ Wait time.Duration }

// Error says how long to wait.
func (e *WaitError) Error() string {
	return fmt.Sprintf("follow: the site was read on request moments ago; again in %s", e.Wait)
}

// Add follows rawURL for a person, as the web form asks. The address is
// normalised and checked against the address policy, and its site looked
// up, once. A site tidings knows is followed at once, without fetching,
// unless the address adds a page to what it watches of the site (see
// addsWatchedPage): that reads the site now, as often as HarvestNow may.
// Anything else is queued as a discovery, within the person's
// MaxPendingDiscoveries and their quotas. The errors a person is told of
// are an *AddressError, ErrAlreadyFollowed, a *WaitError, a *PendingError
// and a *QuotaError.
func (s *Service) Add(ctx context.Context, userID int64, rawURL string) (Added, error) {
	a, err := ParseAddress(rawURL)
	if err != nil {
		return Added{}, &AddressError{err}
	}
	if err := s.h.CheckAddress(ctx, a.Root); err != nil {
		return Added{}, &AddressError{err}
	}
	site, a, err := s.known(ctx, a)
	if errors.Is(err, db.ErrNotFound) {
		if err := s.checkRoom(ctx, userID); err != nil {
			return Added{}, err
		}
		return s.queueAdd(ctx, userID, pending{addr: a})
	}
	if err != nil {
		return Added{}, err
	}
	adds, err := s.addsWatchedPage(ctx, site.ID, a.Input)
	if err != nil {
		return Added{}, err
	}
	followed, err := s.store.Follows(ctx, userID, site.ID)
	if err != nil {
		return Added{}, err
	}
	if !adds {
		if followed {
			return Added{Site: site}, ErrAlreadyFollowed
		}
		if err := s.checkRoom(ctx, userID); err != nil {
			return Added{}, err
		}
		if err := s.store.Follow(ctx, userID, site.ID); errors.Is(err, db.ErrAlreadyExists) {
			return Added{Site: site}, ErrAlreadyFollowed
		} else if err != nil {
			return Added{}, err
		}
		return Added{Site: site}, nil
	}
	if !followed {
		if err := s.checkRoom(ctx, userID); err != nil {
			return Added{}, err
		}
	}
	// Discovered like a new site: the page is fetched, and the site
	// harvested, which is "Harvest now" by another door.
	if err := s.allowHarvest(ctx, userID, site.ID); err != nil {
		return Added{}, err
	}
	return s.queueAdd(ctx, userID, pending{addr: a, site: &site})
}

// queueAdd stores a discovery of p's address for the person, normalised
// (Address.String), within their MaxPendingDiscoveries, and queues it.
func (s *Service) queueAdd(ctx context.Context, userID int64, p pending) (Added, error) {
	if n, err := s.store.PendingCount(ctx, userID); err != nil {
		return Added{}, err
	} else if n >= s.opts.MaxPendingDiscoveries {
		return Added{}, &PendingError{Pending: n, Max: s.opts.MaxPendingDiscoveries}
	}
	x, err := s.store.CreateDiscovery(ctx, userID, 0, p.addr.String())
	if err != nil {
		return Added{}, err
	}
	p.d = x
	s.discover(p)
	return Added{Discovery: x}, nil
}
