package resourcesync

import (
	"context"
	"strconv"

	"tidings/db"
	"tidings/harvest"
	"tidings/harvest/listed"
	"tidings/harvest/pageset"
	"tidings/rsync"
	"tidings/sitemap"
)

// maxListPages bounds the pages one resource list collection follows, its
// index's children together: a resource list is a sitemap, and this is
// the Sitemap protocol's limit for one.
const maxListPages = sitemap.MaxURLs

// maxListChildren bounds the resource lists read from one index.
const maxListChildren = 20

// listHarvest is one harvest of a capability list's resource list: the
// list is read here, and compared and confirmed as every list is (see
// package listed).
type listHarvest struct {
	*listed.Harvest
	docs docs
}

// harvestResourceList harvests a capability list that offers a resource
// list and no change list: successive resource lists are compared (the
// ResourceSync framework's baseline synchronization) through the page-set
// differ, a page whose lastmod, hash or length moved is read to confirm
// that its text changed, and a page that left the list is read to tell
// whether it was deleted. Any error stores nothing of the run but the
// error itself.
func harvestResourceList(ctx context.Context, r *harvest.CollectionRun, d docs, listURL string) (harvest.Result, error) {
	lh, err := listed.Start(ctx, r)
	var res harvest.Result
	if err == nil {
		res, err = (&listHarvest{Harvest: lh, docs: d}).run(ctx, listURL)
	}
	if err != nil {
		// The documents must be read again next time.
		r.Discard()
		return harvest.Result{OwnWatermark: true}, err
	}
	return res, nil
}

func (h *listHarvest) run(ctx context.Context, listURL string) (harvest.Result, error) {
	var pages []db.Page
	seen := map[string]bool{}
	over, other := false, 0
	each := func(e *rsync.Entry) {
		switch {
		case seen[e.Loc]:
		case !h.OnSite(e.Loc, listURL):
			other++
		case len(pages) >= maxListPages:
			over = true
		default:
			seen[e.Loc] = true
			pages = append(pages, db.Page{URL: e.Loc, Modified: listed.NotAfter(e.Lastmod, h.Now()), Hash: resourceHash(e)})
		}
	}
	doc, err := h.docs.docEach(ctx, "resource list", listURL, each)
	if err != nil {
		return harvest.Result{}, err
	}
	if doc == nil {
		// Not modified: nothing listed moved.
		return h.Finish(ctx, nil, false, false)
	}
	complete := true
	if doc.IsIndex() {
		complete = h.children(ctx, doc, each)
	} else {
		h.listWarnings(doc, each)
	}
	if other > 0 {
		h.Warn("the resource list %s names %d resources on other hosts; they were skipped", listURL, other)
	}
	if over {
		h.Warn("the resource lists of %s name more than %d resources; the rest are not followed", listURL, maxListPages)
	}
	return h.Finish(ctx, pages, complete && !over, true)
}

// children reads the resource lists of a resource list index, one level
// deep; it reports whether every one was read.
func (h *listHarvest) children(ctx context.Context, index *rsync.Document, each func(*rsync.Entry)) bool {
	complete := true
	for i, e := range index.Entries {
		if i >= maxListChildren {
			h.Warn("the resource list index %s names more than %d resource lists; only the first %d are read", index.URL, maxListChildren, maxListChildren)
			return false
		}
		if e.Loc == index.URL {
			h.Warn("the resource list index %s names itself; that entry was skipped", index.URL)
			continue
		}
		// Read whole every time: an unchanged list's pages are still
		// listed.
		h.Forget(e.Loc)
		doc, err := h.docs.docEach(ctx, "resource list", e.Loc, each)
		switch {
		case err != nil:
			h.Warn("%s; the resources it lists are kept as they were", err)
			complete = false
		case doc == nil:
			complete = false
		case doc.IsIndex():
			h.Warn("the resource list index %s names another index, %s, which was not read", index.URL, e.Loc)
		default:
			h.listWarnings(doc, each)
		}
	}
	return complete
}

// resourceHash is what is kept of a resource's rs:md hash and length:
// either moving makes the page a candidate update.
func resourceHash(e *rsync.Entry) string {
	if e.Hash == "" && e.Length == 0 {
		return ""
	}
	return pageset.Hash(e.Hash + " " + strconv.FormatInt(e.Length, 10))
}

// listWarnings adds what a resource list says beyond the entries each
// took: its warnings, and the entries of a list read before.
func (h *listHarvest) listWarnings(doc *rsync.Document, each func(*rsync.Entry)) {
	warnings(h.CollectionRun, doc)
	for i := range doc.Entries {
		each(&doc.Entries[i])
	}
}
