package sitemap

import (
	"context"
	"fmt"
	"strings"

	"tidings/fetch"
	"tidings/harvest"
	smdoc "tidings/sitemap"
)

// list reads the sitemap, and the children of an index (one level, at
// most maxSitemapChildren). complete: every page of the scope was read,
// so a page missing from it has left the sitemap. unchanged: the sitemap
// answered 304, or, for an index, the index and every child did.
//
// An index is asked conditionally too, and its children are kept in its
// memo: an index that answers 304 is taken at its last word. When every
// child answers 304 as well nothing is compared; when one changed, the
// others are read again whole, since the pages a child listed are not
// kept apart and the comparison needs the whole list.
func (h *smHarvest) list(ctx context.Context) (urls []smdoc.URL, complete, unchanged bool, err error) {
	src, scope := h.col.SourceURL, h.col.Key
	var read *passed
	if v, ok := h.Passed(passKey + src); ok {
		read = v.(*passed)
	} else {
		o := smdoc.Options{Scope: scope, MaxChildren: maxSitemapChildren}
		read, err = h.read(ctx, src, o)
		if err == nil && read.validators.NotModified && h.Index() && read.memo == "" {
			// Kept before indexes kept their children: read it whole.
			h.Forget(src)
			read, err = h.read(ctx, src, o)
		}
		if err != nil {
			return nil, false, false, err
		}
	}
	var children []string
	prevMemo := ""
	if read.validators.NotModified {
		if !h.Index() {
			return nil, false, true, nil
		}
		children = splitChildren(read.memo)
		complete = !read.overCap
	} else {
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
		children = doc.Children
		if st, ok := h.FetchState(src); ok {
			prevMemo = st.Memo
		}
		h.Keep(src, read.validators, joinChildren(children, !complete))
	}
	if !complete {
		h.Warn("the sitemap index %s names more than %d sitemaps; only the first %d are read", src, maxSitemapChildren, maxSitemapChildren)
	}
	// Each child is read conditionally; when one changed, those that
	// answered 304 are read again whole.
	lists, read304 := make([][]smdoc.URL, len(children)), make([]bool, len(children))
	changed := !read.validators.NotModified && !sameChildren(prevMemo, children)
	for i, child := range children {
		if child == src {
			h.Warn("the sitemap index %s names itself; that entry was skipped", src)
			continue
		}
		cu, same, ok := h.child(ctx, src, child)
		if !ok {
			complete = false
		}
		lists[i], read304[i] = cu, same
		changed = changed || (ok && !same)
	}
	if !changed {
		return nil, false, true, nil
	}
	for i, child := range children {
		if read304[i] {
			h.Forget(child)
			cu, _, ok := h.child(ctx, src, child)
			if !ok {
				complete = false
			}
			lists[i] = cu
		}
	}
	seen := map[string]bool{}
	for _, cu := range lists {
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

// childrenCut marks an index memo whose index named more sitemaps than
// are read.
const childrenCut = "…"

// joinChildren is the memo an index keeps: its children, one a line.
func joinChildren(children []string, cut bool) string {
	s := strings.Join(children, "\n")
	if cut {
		s += "\n" + childrenCut
	}
	return s
}

// sameChildren: an index that changed names the sitemaps it named
// before (only their dates moved, say), so the children's own answers
// tell whether anything changed.
func sameChildren(memo string, children []string) bool {
	return memo != "" && memo == joinChildren(children, false)
}

// splitChildren reads an index memo back.
func splitChildren(memo string) []string {
	if memo == "" {
		return nil
	}
	return strings.Split(memo, "\n")
}

// child reads one sitemap of an index, conditionally; ok is false when it
// could not be read, whose pages then are not taken for gone, and same
// is true when it answered 304.
func (h *smHarvest) child(ctx context.Context, index, u string) (urls []smdoc.URL, same, ok bool) {
	read, err := h.read(ctx, u, smdoc.Options{Scope: h.col.Key})
	if err != nil {
		h.Warn("%s; the pages it lists are kept as they were", err)
		return nil, false, false
	}
	if read.validators.NotModified {
		return nil, true, true
	}
	if read.err != nil {
		h.Warn("the sitemap %s, named by %s, could not be read: %s; the pages it lists are kept as they were", u, index, trimSitemap(read.err))
		return nil, false, false
	}
	doc := read.doc
	h.Keep(u, read.validators, "")
	if doc.Index {
		h.Warn("the sitemap index %s names another index, %s, which was not read: indexes are read one level deep", index, u)
		return nil, false, true
	}
	h.skipped(u, doc.Skipped)
	return doc.URLs, false, true
}

// passed is a sitemap read: what discovery passes on to the first
// harvest, and what a harvest reads. It holds the parse, never the
// document: a sitemap may be 50 MB, and a few held at once by the workers
// would take hundreds of MB.
type passed struct {
	validators *fetch.Response // ETag and Last-Modified; NotModified on a 304
	doc        *smdoc.Document
	err        error  // the document could not be parsed
	memo       string // what the last read kept, on a 304
	overCap    bool   // on a 304: the index named more sitemaps than are read
}

// read fetches the sitemap at u conditionally on what was kept of it, and
// parses it as it arrives. err is a fetch that failed; a document that
// arrived but could not be parsed is read.err.
func (h *smHarvest) read(ctx context.Context, u string, o smdoc.Options) (*passed, error) {
	st, memo, err := h.StreamKnown(ctx, "the sitemap", u, fetch.StreamOptions{})
	if err != nil {
		return nil, err
	}
	read := &passed{validators: &fetch.Response{URL: st.URL, NotModified: st.NotModified, ETag: st.ETag, LastModified: st.LastModified}}
	if st.NotModified {
		read.memo = memo
		if strings.HasSuffix(memo, "\n"+childrenCut) {
			read.memo, read.overCap = strings.TrimSuffix(memo, "\n"+childrenCut), true
		}
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
		pages := "pages"
		if s.BadLastmod == 1 {
			pages = "page"
		}
		h.Warn("the sitemap %s gives %d %s a <lastmod> that is not a W3C datetime; those dates were ignored", src, s.BadLastmod, pages)
	}
}
