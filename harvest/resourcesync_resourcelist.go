package harvest

import (
	"context"
	"strconv"

	"tidings/db"
	"tidings/harvest/pageset"
	"tidings/rsync"
)

// rsResourceList harvests a capability list that offers a resource list
// and no change list, as a sitemap is: successive resource lists are
// compared (the ResourceSync framework's baseline synchronization), a
// page whose lastmod, hash or length moved is read to confirm that its
// text changed, and a page that left the list is read to tell whether it
// was deleted. Any error stores nothing of the run but the error itself.
func rsResourceList(ctx context.Context, j *CollectionRun, listURL string) error {
	// Pages are stored with their changes: no change may wait for the
	// next harvest, and the diff, not a watermark, says what is new.
	j.limit.max = 0
	j.keepWatermark = true
	h := &smHarvest{CollectionRun: j, created: map[string]bool{}, read: map[string]bool{}}
	err := h.resourceList(ctx, listURL)
	if err != nil {
		h.fail()
	}
	return err
}

// fail drops what a failed harvest read, so that only its error is
// stored and the documents are read again next time.
func (h *smHarvest) fail() {
	h.changes, h.pages, h.gone, h.state, h.snapshots, h.checked = nil, nil, nil, nil, nil, nil
	h.s.states = nil
}

func (h *smHarvest) resourceList(ctx context.Context, listURL string) error {
	if err := h.load(ctx); err != nil {
		return err
	}
	var listed []db.Page
	seen := map[string]bool{}
	over, other := false, 0
	each := func(e *rsync.Entry) {
		switch {
		case seen[e.Loc]:
		case !h.OnSite(e.Loc, listURL):
			other++
		case len(listed) >= maxSitemapPages:
			over = true
		default:
			seen[e.Loc] = true
			listed = append(listed, db.Page{URL: e.Loc, Modified: notAfter(e.Lastmod, h.now), Hash: resourceHash(e)})
		}
	}
	doc, err := h.s.docEach(ctx, "resource list", listURL, each)
	if err != nil {
		return err
	}
	if doc == nil {
		// Not modified: nothing listed moved.
		return h.finish(ctx, nil, false, false)
	}
	complete := true
	if doc.IsIndex() {
		complete = h.resourceChildren(ctx, doc, each)
	} else {
		h.listWarnings(doc, each)
	}
	if other > 0 {
		h.warn.add("the resource list %s names %d resources on other hosts; they were skipped", listURL, other)
	}
	if over {
		h.warn.add("the resource lists of %s name more than %d resources; the rest are not followed", listURL, maxSitemapPages)
	}
	return h.finish(ctx, listed, complete && !over, true)
}

// resourceChildren reads the resource lists of a resource list index,
// one level deep; it reports whether every one was read.
func (h *smHarvest) resourceChildren(ctx context.Context, index *rsync.Document, each func(*rsync.Entry)) bool {
	complete := true
	for i, e := range index.Entries {
		if i >= maxSitemapChildren {
			h.warn.add("the resource list index %s names more than %d resource lists; only the first %d are read", index.URL, maxSitemapChildren, maxSitemapChildren)
			return false
		}
		if e.Loc == index.URL {
			h.warn.add("the resource list index %s names itself; that entry was skipped", index.URL)
			continue
		}
		// Read whole every time: an unchanged list's pages are still
		// listed.
		h.s.forget(e.Loc)
		doc, err := h.s.docEach(ctx, "resource list", e.Loc, each)
		switch {
		case err != nil:
			h.warn.add("%s; the resources it lists are kept as they were", err)
			complete = false
		case doc == nil:
			complete = false
		case doc.IsIndex():
			h.warn.add("the resource list index %s names another index, %s, which was not read", index.URL, e.Loc)
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
func (h *smHarvest) listWarnings(doc *rsync.Document, each func(*rsync.Entry)) {
	for _, w := range doc.Warnings {
		h.warn.add("%s", w)
	}
	for i := range doc.Entries {
		each(&doc.Entries[i])
	}
}
