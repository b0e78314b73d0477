// Package listed follows a source that lists a collection's pages with
// their dates or hashes but not what changed: a plain sitemap, a
// ResourceSync resource list. Successive lists are compared through the
// page-set differ; a page whose date or hash moved is read to confirm that
// its text changed, and one that left the list is read to tell whether it
// was deleted. Both adapters hand it the pages they listed; it reaches the
// core through the exported CollectionRun, as they do.
package listed

import (
	"context"
	"encoding/json"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/harvest/pageset"
)

// StampWarning says, on the site's page and in `tidings check`, why every
// page is read; the words are the sitemap source's, which the check
// knows.
const StampWarning = "this sitemap's dates change with every build; changes are confirmed by reading the pages"

// listState is a resource list collection's state, stored with each
// harvest.
type listState struct {
	// Index: the source is an index, read whole every time (a 304 of the
	// index says nothing of its children).
	Index bool `json:"index,omitempty"`
	// Stamped: the list's dates change with every build, so a moved
	// lastmod says nothing until the page is read.
	Stamped bool `json:"stamped,omitempty"`
	// Waiting are the pages whose date or hash moved but which the budget
	// of page fetches left unread, as the list gave them: confirmed first
	// at the next harvests, also when the list answers 304 then.
	Waiting []waiting `json:"waiting,omitempty"`
}

// waiting is a listed page whose new version is still to be confirmed.
type waiting struct {
	URL      string     `json:"url"`
	Modified *time.Time `json:"modified,omitempty"`
	Hash     string     `json:"hash,omitempty"`
}

// maxWaiting bounds the pages kept waiting: a list where thousands moved
// at once is confirmed over the harvests its budget allows, the oldest
// news first, and what is past this bound is found again when the list
// next changes.
const maxWaiting = 5000

// Harvest is one harvest of a collection whose source lists its pages.
type Harvest struct {
	*harvest.CollectionRun
	col     db.Collection
	now     time.Time
	st      listState
	set     *pageset.Set
	checks  map[string]time.Time // when each page was last read
	created map[string]bool      // pages recorded as created in this harvest
	read    map[string]bool      // pages read, or to be left alone, in this harvest
	reads   []pageRead           // what reading them said, judged by settle
	res     harvest.Result
	// siteMethod is how most of the site's pages were read, for reading
	// a new one the same way (see readPage).
	siteMethod string
}

// Start begins a harvest of r's collection: it reads the collection's
// state, its known pages and when each was last read.
func Start(ctx context.Context, r *harvest.CollectionRun) (*Harvest, error) {
	h := &Harvest{CollectionRun: r, col: r.Collection(), now: r.Now(), created: map[string]bool{}, read: map[string]bool{}}
	return h, h.load(ctx)
}

// Index reports whether the source was an index at its last reading.
func (h *Harvest) Index() bool { return h.st.Index }

// SetIndex records whether the source is an index, kept with the
// collection's state.
func (h *Harvest) SetIndex(index bool) { h.st.Index = index }

// Now is the harvest's time, which a lastmod from the future becomes.
func (h *Harvest) Now() time.Time { return h.now }

// Finish compares what was listed (when read: an unchanged list lists
// what it listed) with the pages known, complete when the list names
// every page of the collection; reads the pages to read; and returns what
// is to be stored. The changes come from the comparison, not from a
// watermark.
func (h *Harvest) Finish(ctx context.Context, listed []db.Page, complete, read bool) (harvest.Result, error) {
	if err := h.finish(ctx, listed, complete, read); err != nil {
		return harvest.Result{OwnWatermark: true}, err
	}
	h.res.OwnWatermark = true
	return h.res, nil
}

// load reads the collection's state, known pages and their checks.
func (h *Harvest) load(ctx context.Context) error {
	if h.col.State != "" && json.Unmarshal([]byte(h.col.State), &h.st) != nil {
		h.Warn("the stored state of this collection could not be read; it was started afresh")
		h.st = listState{}
	}
	known, err := h.KnownPages(ctx)
	if err != nil {
		return err
	}
	h.set = pageset.New(known)
	h.checks, err = h.PageChecks(ctx)
	return err
}

// finish compares what was listed (when read) with the pages known, reads
// the pages to read, and hands back what changed.
func (h *Harvest) finish(ctx context.Context, listed []db.Page, complete, read bool) error {
	if read {
		if err := h.compare(ctx, listed, complete); err != nil {
			return err
		}
	} else if err := h.confirm(ctx, h.waitingPages()); err != nil {
		// An unchanged list still has pages whose move was not read yet.
		return err
	}
	if h.st.Stamped {
		h.Find(stampFinding(h.col.SourceURL), "%s", StampWarning)
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

// NotAfter keeps a lastmod from the future out of the store.
func NotAfter(t *time.Time, now time.Time) *time.Time {
	if t == nil || !t.After(now) {
		return t
	}
	return &now
}

// waitingPages are the pages left to confirm by earlier harvests that are
// still as the list gave them: a page read since, or gone, is not.
func (h *Harvest) waitingPages() []db.Page {
	var out []db.Page
	for _, w := range h.st.Waiting {
		known, ok := h.set.Page(w.URL)
		if !ok {
			continue
		}
		p := db.Page{URL: w.URL, Modified: w.Modified, Hash: w.Hash, Title: known.Title}
		if v := pageset.CompareVersions(known, p); v == pageset.Modified || v == pageset.Revised {
			out = append(out, p)
		}
	}
	return out
}
