package sitemap

import (
	"context"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/harvest/listed"
	smdoc "tidings/sitemap"
)

// maxSitemapPages bounds the pages one sitemap collection follows, its
// index's children together: the protocol's limit for one sitemap.
const maxSitemapPages = smdoc.MaxURLs

// smHarvest is one harvest of a sitemap collection: the sitemap is read
// here, and compared and confirmed as every list is (package listed).
type smHarvest struct {
	*listed.Harvest
	col db.Collection
}

// Harvest compares the sitemap with the pages known, reads the new pages,
// re-reads the pages whose dates cannot be trusted, and judges what the
// pages read say (see package listed). Any error stores nothing of the run
// but the error itself.
func (Source) Harvest(ctx context.Context, r *harvest.CollectionRun) (harvest.Result, error) {
	lh, err := listed.Start(ctx, r)
	var res harvest.Result
	if err == nil {
		res, err = (&smHarvest{Harvest: lh, col: r.Collection()}).run(ctx)
	}
	if err != nil {
		// The documents must be read again next time.
		r.Discard()
		return harvest.Result{OwnWatermark: true}, err
	}
	return res, nil
}

func (h *smHarvest) run(ctx context.Context) (harvest.Result, error) {
	urls, complete, unchanged, err := h.list(ctx)
	if err != nil {
		return harvest.Result{}, err
	}
	if unchanged {
		return h.Finish(ctx, nil, false, false)
	}
	return h.Finish(ctx, listedPages(urls, h.Now()), complete, true)
}

// listedPages turns a sitemap's entries into pages as the store keeps
// them; a lastmod in the future is now.
func listedPages(urls []smdoc.URL, now time.Time) []db.Page {
	out := make([]db.Page, len(urls))
	for i, u := range urls {
		out[i] = db.Page{URL: u.Loc, Modified: listed.NotAfter(u.Lastmod, now)}
	}
	return out
}
