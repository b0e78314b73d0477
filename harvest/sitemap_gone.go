package harvest

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"tidings/crawl"
	"tidings/fetch"
	"tidings/harvest/pageset"
	"tidings/hints"
)

// checkGone reads the known pages the sitemap no longer lists: a 404 or
// 410 (or a page that says "not found") is a deletion, left to commit; a
// page that still answers is only no longer followed, with a warning; one
// that could not be read, or past the budget, is kept for the next
// harvest. A page listed again under another form of its address ("/x"
// for "/x/") has moved, not gone: it returns those new addresses.
func (h *smHarvest) checkGone(ctx context.Context, doc *pageset.Doc, complete bool, byKey map[string]string) map[string]bool {
	renamed := map[string]bool{}
	if !complete {
		return renamed
	}
	waiting := 0
	for _, u := range doc.Unlisted() {
		if now, ok := byKey[pageKey(u)]; ok {
			doc.Forget(u)
			renamed[now] = true
			continue
		}
		if h.h.opts.Snapshots.Off {
			continue
		}
		if !h.spend(ctx) {
			doc.List(u)
			waiting++
			continue
		}
		h.read[u] = true
		resp, err := h.h.client.Get(ctx, u, fetch.Conditional{})
		switch {
		case fetch.Gone(err):
		case err != nil:
			h.s.noteRetryAfter(err)
			h.stopOn(err)
			doc.List(u)
			h.warn.add("%s; it is no longer in the sitemap, and is read again at the next harvest", roleError("the page", err))
		case saysNotFound(resp):
		case !sameAddress(resp.URL, u):
			doc.Forget(u)
			h.warn.add("the page %s is no longer in the sitemap and now leads to %s; it is no longer followed", u, resp.URL)
		default:
			doc.Forget(u)
			h.warn.add("the page %s is no longer in the sitemap but is still there; it is no longer followed", u)
		}
	}
	if waiting > 0 {
		h.warn.add("%d pages no longer in the sitemap wait for the next harvest to be read (the limit of page fetches, --page-fetches, was reached)", waiting)
	}
	return renamed
}

// stopOn: a site that asks for a pause (429, 503) is not asked for more
// pages in this harvest.
func (h *smHarvest) stopOn(err error) {
	var fe *fetch.FetchError
	if errors.As(err, &fe) && fe.RetryAfter > 0 && h.shots != nil {
		h.shots.stop = true
	}
}

// saysNotFound tells a soft 404: a page answered 200 whose title says it
// is not there.
func saysNotFound(resp *fetch.Response) bool {
	if !strings.Contains(strings.ToLower(resp.ContentType), "html") {
		return false
	}
	_, title := hints.HTMLHints(bytes.NewReader(resp.Body), resp.URL)
	return crawl.NotFound(title, "")
}

// sameAddress: a page that redirected from a to b is still itself ("/x"
// to "/x/", http to https); a login page or the home page is not.
func sameAddress(a, b string) bool { return pageKey(a) == pageKey(b) }
