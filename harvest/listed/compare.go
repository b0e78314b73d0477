package listed

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"tidings/crawl"
	"tidings/db"
	"tidings/fetch"
	"tidings/harvest/pageset"
	"tidings/hints"
)

// compare reads the listed pages against the known ones. A page that
// appears is created (on the first harvest, it is only recorded as
// seen); one whose lastmod, hash or length moved is a candidate,
// confirmed by reading it (see confirm); one that disappeared is read to
// tell a deletion from a page that only left the list (see checkGone).
func (h *Harvest) compare(ctx context.Context, listed []db.Page, complete bool) error {
	fresh := h.set.Fresh()
	h.detectStamp(listed)
	doc := h.set.Read(h.now, pageset.Rules{Complete: complete})
	var created []pageset.Change
	var cands []db.Page
	byKey := make(map[string]string, len(listed))
	for _, p := range listed {
		k := pageset.Key(p.URL)
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
		h.Record(db.Change{URL: c.Page.URL, Kind: "deleted", Datetime: c.At, Source: h.col.SourceURL, Title: c.Page.Title})
	}
	for _, c := range created {
		if renamed[c.Page.URL] || fresh && !h.recent(c.Page) {
			// The first harvest records the pages as already seen, but
			// for those the site dates within the first harvest's
			// window: the collection's first entry, as for every source.
			continue
		}
		if fresh && h.col.HandedOver {
			// Known to the feed under the source before: a page dated
			// since its last harvest is confirmed by reading it, as any
			// moved date is.
			cands = append(cands, c.Page)
			continue
		}
		h.created[c.Page.URL] = true
		h.Record(db.Change{URL: c.Page.URL, Kind: "created", Datetime: c.At, Source: h.col.SourceURL})
	}
	return h.confirm(ctx, cands)
}

// recent: a page dated, by a list whose dates are the pages' own, within
// the first harvest's window.
func (h *Harvest) recent(p db.Page) bool {
	return !h.st.Stamped && p.Modified != nil && !p.Modified.Before(h.Cutoff())
}

// detectStamp tells a list whose dates are the build's: nearly every
// dated entry moved since the last harvest, or most of them share one
// lastmod that moved with them. At the first look, sharing one lastmod is
// enough; a harvest in which no date moved (no build since) keeps what
// was known.
func (h *Harvest) detectStamp(listed []db.Page) {
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

// checkGone reads the known pages the list no longer names: a 404 or 410
// (or a page that says "not found"), or a redirect to another page (a page
// renamed), is a deletion, left to commit; a page that still answers as
// itself is only no longer followed, with a warning; one that
// could not be read, or past the budget, is kept for the next harvest. A
// page listed again under another form of its address ("/x" for "/x/")
// has moved, not gone: it returns those new addresses.
func (h *Harvest) checkGone(ctx context.Context, doc *pageset.Doc, complete bool, byKey map[string]string) map[string]bool {
	renamed := map[string]bool{}
	if !complete {
		return renamed
	}
	waiting := 0
	for _, u := range doc.Unlisted() {
		if now, ok := byKey[pageset.Key(u)]; ok {
			doc.Forget(u)
			renamed[now] = true
			continue
		}
		if !h.ReadsPages() {
			continue
		}
		if ctx.Err() != nil || !h.TakePageFetch() {
			doc.List(u)
			waiting++
			continue
		}
		h.read[u] = true
		resp, err := h.FetchPage(ctx, u)
		switch {
		case fetch.Gone(err):
		case err != nil:
			doc.List(u)
			h.Warn("%s; it is no longer in the sitemap, and is read again at the next harvest", pageError(err))
		case saysNotFound(resp):
		case !pageset.SameAddress(resp.URL, u):
			// Renamed, or sent elsewhere because it is gone: either way
			// its address is gone, and its followers are told so (the
			// new address, when listed, is a page created).
		default:
			doc.Forget(u)
			h.Warn("the page %s is no longer in the sitemap but is still there; it is no longer followed", u)
		}
	}
	if waiting > 0 {
		h.Warn("%d pages no longer in the sitemap wait for the next harvest to be read (the limit of page fetches, --page-fetches, was reached)", waiting)
	}
	return renamed
}

// pageError says for people why a page could not be read.
func pageError(err error) string {
	var fe *fetch.FetchError
	if errors.As(err, &fe) {
		return "the page " + fe.Error()
	}
	return "the page " + err.Error()
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
