package follow

import (
	"context"

	"tidings/db"
	"tidings/harvest"
)

// addsWatchedPage reports whether following input on a site tidings
// already knows changes what it watches of the site's pages: a page
// inside a watched scope that is not watched yet (a link crawl may never
// reach it), or another directory of a site whose pages are watched (a
// collection of its own). Such an address is followed, which fetches it,
// rather than the site just added to the person's sites.
func (s *Service) addsWatchedPage(ctx context.Context, siteID int64, input string) (bool, error) {
	cols, err := s.store.Collections(ctx, db.CollectionFilter{SiteID: siteID, ActiveOnly: true})
	if err != nil {
		return false, err
	}
	watched := false
	for _, c := range cols {
		w, ok := harvest.PageWatcherOf(c.Protocol)
		if !ok {
			continue
		}
		watched = true
		list, err := s.store.WatchedPages(ctx, c.ID)
		if err != nil {
			return false, err
		}
		if inScope, adds := w.PageToWatch(c, list, input); inScope {
			return adds, nil
		}
	}
	return watched, nil
}
