package feedbuild

import (
	"context"
	"fmt"
	"time"

	"tidings/db"
)

// GoneError is what CollectionSpec and SiteSpec return for a site nobody
// follows any more: it is no longer harvested, and its feeds have ended.
type GoneError struct {
	SiteURL string
	Since   time.Time // when its last follower left
}

func (e *GoneError) Error() string {
	return fmt.Sprintf("feedbuild: nobody has followed %s since %s", e.SiteURL, e.Since.Format(time.DateOnly))
}

// Message says so to a feed reader's person.
func (e *GoneError) Message() string {
	return fmt.Sprintf("This feed has ended: nobody on this tidings has followed %s since %s, so it is no longer watched. Following the site again on tidings brings the feed back.",
		e.SiteURL, e.Since.Format(time.DateOnly))
}

// checkFollowed returns a GoneError for a site whose last follower left.
func checkFollowed(site db.Site) error {
	if site.UnfollowedAt != nil {
		return &GoneError{SiteURL: site.URL, Since: *site.UnfollowedAt}
	}
	return nil
}

// collectionSite loads a collection's site to see whether it is followed.
func (b *Builder) collectionSite(ctx context.Context, col db.Collection) error {
	site, err := b.store.SiteByID(ctx, col.SiteID)
	if err != nil {
		return err
	}
	return checkFollowed(site)
}
