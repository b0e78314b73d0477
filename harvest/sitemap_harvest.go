package harvest

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"tidings/db"
	"tidings/harvest/pageset"
	"tidings/sitemap"
)

// maxSitemapPages bounds the pages one sitemap collection follows, its
// index's children together: the protocol's limit for one sitemap.
const maxSitemapPages = sitemap.MaxURLs

// sitemapState is a sitemap collection's protocol state, stored with each
// harvest.
type sitemapState struct {
	// Index: the source is a sitemap index, read whole every time (a 304
	// of the index says nothing of its children).
	Index bool `json:"index,omitempty"`
	// Stamped: the sitemap's dates change with every build, so a moved
	// lastmod says nothing until the page is read.
	Stamped bool `json:"stamped,omitempty"`
}

// StampWarning says, on the site's page and in `tidings check`, why
// every page is read.
const StampWarning = "this sitemap's dates change with every build; changes are confirmed by reading the pages"

// smHarvest is one harvest of a sitemap collection.
type smHarvest struct {
	*CollectionRun
	st      sitemapState
	set     *pageset.Set
	checks  map[string]time.Time // when each page was last read
	created map[string]bool      // pages recorded as created in this harvest
	read    map[string]bool      // pages read, or to be left alone, in this harvest
	reads   []listedRead         // what reading them said, judged by settle
}

// harvest compares the sitemap with the pages known (see compare), reads
// the new pages, then re-reads the pages whose dates cannot be trusted
// (see recheck), and judges what the pages read say (see settle). Any
// error stores nothing of the run but the error itself.
func (sitemapProtocol) harvest(ctx context.Context, j *CollectionRun) error {
	j.keepWatermark = true // changes come from comparing lists, not from a watermark
	h := &smHarvest{CollectionRun: j, created: map[string]bool{}, read: map[string]bool{}}
	err := h.run(ctx)
	if err != nil {
		h.fail()
	}
	return err
}

func (h *smHarvest) run(ctx context.Context) error {
	if err := h.load(ctx); err != nil {
		return err
	}
	listed, complete, unchanged, err := h.list(ctx)
	if err != nil {
		return err
	}
	if unchanged {
		return h.finish(ctx, nil, false, false)
	}
	return h.finish(ctx, listedPages(listed, h.now), complete, true)
}

// listedPages turns a sitemap's entries into pages as the store keeps
// them; a lastmod in the future is now.
func listedPages(urls []sitemap.URL, now time.Time) []db.Page {
	out := make([]db.Page, len(urls))
	for i, u := range urls {
		out[i] = db.Page{URL: u.Loc, Modified: notAfter(u.Lastmod, now)}
	}
	return out
}

// finish compares what was listed (when read) with the pages known, reads
// the pages to read, and hands what changed to the run.
func (h *smHarvest) finish(ctx context.Context, listed []db.Page, complete, read bool) error {
	if read {
		if err := h.compare(ctx, listed, complete); err != nil {
			return err
		}
	}
	if h.st.Stamped {
		h.warn.add("%s", StampWarning)
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
	h.pages, h.gone = h.set.ToStore()
	if b, err := json.Marshal(h.st); err == nil {
		s := string(b)
		h.state = &s
	}
	return nil
}

// load reads the collection's state, known pages and their checks.
func (h *smHarvest) load(ctx context.Context) error {
	if h.col.State != "" && json.Unmarshal([]byte(h.col.State), &h.st) != nil {
		h.warn.add("the stored state of this collection could not be read; it was started afresh")
		h.st = sitemapState{}
	}
	known, err := h.pagesKnown(ctx)
	if err != nil {
		return err
	}
	h.set = pageset.New(known)
	h.checks, err = h.h.store.PageChecks(ctx, h.col.ID)
	return err
}

// compare reads the listed pages against the known ones. A page that
// appears is created (on the first harvest, it is only recorded as
// seen); one whose lastmod moved is a candidate, confirmed by reading it
// (see confirm); one that disappeared is read to tell a deletion from a
// page that only left the sitemap (see checkGone).
func (h *smHarvest) compare(ctx context.Context, listed []db.Page, complete bool) error {
	fresh := h.set.Fresh()
	h.detectStamp(listed)
	doc := h.set.Read(h.now, pageset.Rules{Complete: complete})
	var created []pageset.Change
	var cands []db.Page
	byKey := make(map[string]string, len(listed))
	for _, p := range listed {
		k := pageKey(p.URL)
		if _, dup := byKey[k]; dup {
			// "/x" and "/x/index.html" are one page: followed once.
			continue
		}
		byKey[k] = p.URL
		if known, ok := doc.Page(p.URL); ok {
			if v := pageset.CompareVersions(known, p); v == pageset.Modified || v == pageset.Revised {
				doc.List(p.URL)
				cands = append(cands, p)
				continue
			}
		}
		if c, ok := doc.Add(p); ok && c.Kind == "created" {
			created = append(created, c)
		}
	}
	renamed := h.checkGone(ctx, doc, complete, byKey)
	for _, c := range doc.Commit() {
		h.record(db.Change{URL: c.Page.URL, Kind: "deleted", Datetime: c.At, Source: h.col.SourceURL, Title: c.Page.Title})
	}
	for _, c := range created {
		if renamed[c.Page.URL] || fresh && !h.recent(c.Page) {
			// The first harvest records the pages as already seen, but
			// for those the site dates within the first harvest's
			// window: the collection's first entry, as for every source.
			continue
		}
		h.created[c.Page.URL] = true
		h.record(db.Change{URL: c.Page.URL, Kind: "created", Datetime: c.At, Source: h.col.SourceURL})
	}
	return h.confirm(ctx, cands)
}

// recent: a page dated, by a sitemap whose dates are the pages' own,
// within the first harvest's window.
func (h *smHarvest) recent(p db.Page) bool {
	return !h.st.Stamped && p.Modified != nil && !p.Modified.Before(h.cutoff)
}

// notAfter keeps a lastmod from the future out of the store.
func notAfter(t *time.Time, now time.Time) *time.Time {
	if t == nil || !t.After(now) {
		return t
	}
	return &now
}

// pageKey is what tells one page from another: "/x", "/x/",
// "/x/index.html" and "/x.html" are often one page, served by either
// scheme, with or without "www.".
func pageKey(u string) string {
	s := u
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	host, rest := s, ""
	if i := strings.IndexByte(s, '/'); i >= 0 {
		host, rest = s[:i], s[i:]
	}
	path, query := rest, ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		path, query = rest[:i], rest[i:]
	}
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query = query[:i]
	}
	path = strings.TrimSuffix(path, "index.html")
	path = strings.TrimSuffix(path, ".html")
	path = strings.TrimSuffix(path, "/")
	return bareHost(host) + path + query
}

// detectStamp tells a sitemap whose dates are the build's: nearly every
// dated entry moved since the last harvest, or most of them share one
// lastmod that moved with them. At the first look, sharing one lastmod is
// enough; a harvest in which no date moved (no build since) keeps what
// was known.
func (h *smHarvest) detectStamp(listed []db.Page) {
	counts := map[int64]int{}
	dated, top, compared, moved := 0, 0, 0, 0
	var topAt int64
	for _, u := range listed {
		if u.Modified == nil {
			continue
		}
		dated++
		k := u.Modified.Unix()
		counts[k]++
		if counts[k] > top {
			top, topAt = counts[k], k
		}
	}
	topCompared, topMoved := 0, 0
	for _, u := range listed {
		known, ok := h.set.Page(u.URL)
		if u.Modified == nil || !ok || known.Modified == nil {
			continue
		}
		compared++
		m := !known.Modified.Equal(*u.Modified)
		if m {
			moved++
		}
		if u.Modified.Unix() == topAt {
			topCompared++
			if m {
				topMoved++
			}
		}
	}
	const least = 4
	shared := dated >= least && top*5 >= dated*4
	switch {
	case compared < least:
		h.st.Stamped = shared
	case moved == 0:
	default:
		h.st.Stamped = moved*10 >= compared*9 || shared && topMoved*2 > topCompared
	}
}
