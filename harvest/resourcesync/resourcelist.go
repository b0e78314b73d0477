package resourcesync

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"tidings/db"
	"tidings/harvest"
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

// stampWarning says, on the site's page and in `tidings check`, why every
// page is read; the words are the sitemap source's, which the check
// knows.
const stampWarning = "this sitemap's dates change with every build; changes are confirmed by reading the pages"

// listState is a resource list collection's state, stored with each
// harvest.
type listState struct {
	// Stamped: the list's dates change with every build, so a moved
	// lastmod says nothing until the page is read.
	Stamped bool `json:"stamped,omitempty"`
}

// listHarvest is one harvest of a capability list's resource list.
type listHarvest struct {
	*harvest.CollectionRun
	docs    docs
	col     db.Collection
	now     time.Time
	st      listState
	set     *pageset.Set
	checks  map[string]time.Time // when each page was last read
	created map[string]bool      // pages recorded as created in this harvest
	read    map[string]bool      // pages read, or to be left alone, in this harvest
	reads   []pageRead           // what reading them said, judged by settle
	res     harvest.Result
}

// harvestResourceList harvests a capability list that offers a resource
// list and no change list: successive resource lists are compared (the
// ResourceSync framework's baseline synchronization) through the page-set
// differ, a page whose lastmod, hash or length moved is read to confirm
// that its text changed, and a page that left the list is read to tell
// whether it was deleted. Any error stores nothing of the run but the
// error itself.
func harvestResourceList(ctx context.Context, r *harvest.CollectionRun, d docs, listURL string) (harvest.Result, error) {
	h := &listHarvest{CollectionRun: r, docs: d, col: r.Collection(), now: r.Now(),
		created: map[string]bool{}, read: map[string]bool{}}
	if err := h.run(ctx, listURL); err != nil {
		// The documents must be read again next time.
		r.Discard()
		return harvest.Result{OwnWatermark: true}, err
	}
	// Pages are stored with their changes: the diff, not a watermark,
	// says what is new.
	h.res.OwnWatermark = true
	return h.res, nil
}

func (h *listHarvest) run(ctx context.Context, listURL string) error {
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
		case len(listed) >= maxListPages:
			over = true
		default:
			seen[e.Loc] = true
			listed = append(listed, db.Page{URL: e.Loc, Modified: notAfter(e.Lastmod, h.now), Hash: resourceHash(e)})
		}
	}
	doc, err := h.docs.docEach(ctx, "resource list", listURL, each)
	if err != nil {
		return err
	}
	if doc == nil {
		// Not modified: nothing listed moved.
		return h.finish(ctx, nil, false, false)
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
	return h.finish(ctx, listed, complete && !over, true)
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
	for _, w := range doc.Warnings {
		h.Warn("%s", w)
	}
	for i := range doc.Entries {
		each(&doc.Entries[i])
	}
}

// load reads the collection's state, known pages and their checks.
func (h *listHarvest) load(ctx context.Context) error {
	if h.col.State != "" && json.Unmarshal([]byte(h.col.State), &h.st) != nil {
		h.Warn("the stored state of this collection could not be read; it was started afresh")
		h.st = listState{}
	}
	known, err := h.KnownPages(ctx)
	if err != nil {
		return err
	}
	h.set = pageset.New(known)
	h.checks, err = h.Store().PageChecks(ctx, h.col.ID)
	return err
}

// finish compares what was listed (when read) with the pages known, reads
// the pages to read, and hands back what changed.
func (h *listHarvest) finish(ctx context.Context, listed []db.Page, complete, read bool) error {
	if read {
		if err := h.compare(ctx, listed, complete); err != nil {
			return err
		}
	}
	if h.st.Stamped {
		h.Warn("%s", stampWarning)
	}
	// The budget goes to the pages whose date moved (read by compare),
	// then to the new pages, then to the pages checked longest ago.
	if err := h.readCreated(ctx); err != nil {
		return err
	}
	if err := h.recheck(ctx); err != nil {
		return err
	}
	h.settle(ctx)
	h.res.Pages, h.res.Gone = h.set.ToStore()
	if b, err := json.Marshal(h.st); err == nil {
		s := string(b)
		h.res.State = &s
	}
	return nil
}

// notAfter keeps a lastmod from the future out of the store.
func notAfter(t *time.Time, now time.Time) *time.Time {
	if t == nil || !t.After(now) {
		return t
	}
	return &now
}
