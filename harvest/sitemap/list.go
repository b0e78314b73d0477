package sitemap

import (
	"context"
	"fmt"

	"tidings/fetch"
	"tidings/harvest"
	smdoc "tidings/sitemap"
)

// list reads the sitemap, and the children of an index (one level, at
// most maxSitemapChildren). complete: every page of the scope was read,
// so a page missing from it has left the sitemap. unchanged: the sitemap
// answered 304.
func (h *smHarvest) list(ctx context.Context) (urls []smdoc.URL, complete, unchanged bool, err error) {
	src, scope := h.col.SourceURL, h.col.Key
	if h.Index() {
		h.Forget(src)
	}
	var read *passed
	if v, ok := h.Passed(passKey + src); ok {
		read = v.(*passed)
	} else {
		read, err = h.read(ctx, src, smdoc.Options{Scope: scope, MaxChildren: maxSitemapChildren})
		if err != nil {
			return nil, false, false, err
		}
	}
	if read.validators.NotModified {
		return nil, false, true, nil
	}
	if read.err != nil {
		return nil, false, false, &harvest.Problem{Msg: fmt.Sprintf("the sitemap %s could not be read: %s", src, trimSitemap(read.err)), Err: read.err}
	}
	doc := read.doc
	h.SetIndex(doc.Index)
	h.skipped(src, doc.Skipped)
	if !doc.Index {
		h.Keep(src, read.validators, "")
		return doc.URLs, true, false, nil
	}
	complete = doc.Skipped.OverCap == 0
	if !complete {
		h.Warn("the sitemap index %s names more than %d sitemaps; only the first %d are read", src, maxSitemapChildren, maxSitemapChildren)
	}
	seen := map[string]bool{}
	for _, child := range doc.Children {
		if child == src {
			h.Warn("the sitemap index %s names itself; that entry was skipped", src)
			continue
		}
		cu, ok := h.child(ctx, src, child)
		if !ok {
			complete = false
			continue
		}
		for _, u := range cu {
			if seen[u.Loc] {
				continue
			}
			if len(urls) >= maxSitemapPages {
				h.Warn("the sitemaps of %s list more than %d pages; the rest are not followed", src, maxSitemapPages)
				return urls, false, false, nil
			}
			seen[u.Loc] = true
			urls = append(urls, u)
		}
	}
	return urls, complete, false, nil
}

// child reads one sitemap of an index; ok is false when it could not be
// read, whose pages then are not taken for gone.
func (h *smHarvest) child(ctx context.Context, index, u string) ([]smdoc.URL, bool) {
	h.Forget(u)
	read, err := h.read(ctx, u, smdoc.Options{Scope: h.col.Key})
	if err != nil {
		h.Warn("%s; the pages it lists are kept as they were", err)
		return nil, false
	}
	if read.err != nil {
		h.Warn("the sitemap %s, named by %s, could not be read: %s; the pages it lists are kept as they were", u, index, trimSitemap(read.err))
		return nil, false
	}
	doc := read.doc
	if doc.Index {
		h.Warn("the sitemap index %s names another index, %s, which was not read: indexes are read one level deep", index, u)
		return nil, true
	}
	h.skipped(u, doc.Skipped)
	return doc.URLs, true
}

// passed is a sitemap read: what discovery passes on to the first
// harvest, and what a harvest reads. It holds the parse, never the
// document: a sitemap may be 50 MB, and a few held at once by the workers
// would take hundreds of MB.
type passed struct {
	validators *fetch.Response // ETag and Last-Modified; NotModified on a 304
	doc        *smdoc.Document
	err        error // the document could not be parsed
}

// read fetches the sitemap at u conditionally on what was kept of it, and
// parses it as it arrives. err is a fetch that failed; a document that
// arrived but could not be parsed is read.err.
func (h *smHarvest) read(ctx context.Context, u string, o smdoc.Options) (*passed, error) {
	st, _, err := h.StreamKnown(ctx, "the sitemap", u, fetch.StreamOptions{})
	if err != nil {
		return nil, err
	}
	read := &passed{validators: &fetch.Response{URL: st.URL, NotModified: st.NotModified, ETag: st.ETag, LastModified: st.LastModified}}
	if st.NotModified {
		return read, nil
	}
	defer st.Body.Close()
	o.MaxBytes = h.MaxBody()
	read.doc, read.err = smdoc.Parse(st.Body, o)
	return read, nil
}

// skipped says what a sitemap listed that is not followed.
func (h *smHarvest) skipped(src string, s smdoc.Skips) {
	if s.OtherHost > 0 {
		h.Warn("the sitemap %s lists %d pages on other hosts; they were skipped", src, s.OtherHost)
	}
	if s.Invalid > 0 {
		h.Warn("the sitemap %s lists %d entries that are not usable page addresses; they were skipped", src, s.Invalid)
	}
	if s.OverCap > 0 && s.OverCap != s.Total() {
		h.Warn("the sitemap %s lists more pages than a sitemap may (%d); the rest were skipped", src, smdoc.MaxURLs)
	}
	if s.BadLastmod > 0 {
		h.Warn("the sitemap %s gives %d pages a <lastmod> that is not a W3C datetime; those dates were ignored", src, s.BadLastmod)
	}
}
