package follow

import (
	"context"
	"errors"

	"tidings/db"
)

// Looked is what Lookup found of an address.
type Looked struct {
	Address Address
	// Site is the stored site the address belongs to; zero when none.
	Site db.Site
	// Followed: the person follows it. Here: someone on this tidings
	// does (a site only the command line follows counts as followed
	// here while it is harvested).
	Followed, Here bool
}

// Lookup says whether an address, normalised as a follow normalises it,
// belongs to a site the person follows, or one this tidings follows for
// anyone, without fetching anything. An address that is not one is an
// *AddressError.
func (s *Service) Lookup(ctx context.Context, userID int64, rawURL string) (Looked, error) {
	a, err := ParseAddress(rawURL)
	if err != nil {
		return Looked{}, &AddressError{err}
	}
	site, a, err := s.known(ctx, a)
	if errors.Is(err, db.ErrNotFound) {
		return Looked{Address: a}, nil
	}
	if err != nil {
		return Looked{}, err
	}
	l := Looked{Address: a, Site: site, Here: site.UnfollowedAt == nil}
	if l.Followed, err = s.store.Follows(ctx, userID, site.ID); err != nil {
		return Looked{}, err
	}
	return l, nil
}
