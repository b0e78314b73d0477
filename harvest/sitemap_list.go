package harvest

import (
	"bytes"
	"context"
	"fmt"

	"tidings/sitemap"
)

// list reads the sitemap, and the children of an index (one level, at
// most maxSitemapChildren). complete: every page of the scope was read,
// so a page missing from it has left the sitemap. unchanged: the sitemap
// answered 304.
func (h *smHarvest) list(ctx context.Context) (urls []sitemap.URL, complete, unchanged bool, err error) {
	src, scope := h.col.SourceURL, h.col.Key
	if h.st.Index {
		h.s.forget(src)
	}
	resp, ok := h.s.bodies[src]
	if !ok {
		if resp, _, err = h.s.fetch(ctx, "the sitemap", src); err != nil {
			return nil, false, false, err
		}
	}
	if resp.NotModified {
		return nil, false, true, nil
	}
	doc, err := sitemap.Parse(bytes.NewReader(resp.Body), sitemap.Options{Scope: scope, MaxChildren: maxSitemapChildren})
	if err != nil {
		return nil, false, false, &Problem{Msg: fmt.Sprintf("the sitemap %s could not be read: %s", src, trimSitemap(err)), Err: err}
	}
	h.st.Index = doc.Index
	h.skipped(src, doc.Skipped)
	if !doc.Index {
		h.s.keep(src, resp, "")
		return doc.URLs, true, false, nil
	}
	complete = doc.Skipped.OverCap == 0
	if !complete {
		h.warn.add("the sitemap index %s names more than %d sitemaps; only the first %d are read", src, maxSitemapChildren, maxSitemapChildren)
	}
	seen := map[string]bool{}
	for _, child := range doc.Children {
		if child == src {
			h.warn.add("the sitemap index %s names itself; that entry was skipped", src)
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
				h.warn.add("the sitemaps of %s list more than %d pages; the rest are not followed", src, maxSitemapPages)
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
func (h *smHarvest) child(ctx context.Context, index, u string) ([]sitemap.URL, bool) {
	h.s.forget(u)
	resp, _, err := h.s.fetch(ctx, "the sitemap", u)
	if err != nil {
		h.warn.add("%s; the pages it lists are kept as they were", err)
		return nil, false
	}
	doc, err := sitemap.Parse(bytes.NewReader(resp.Body), sitemap.Options{Scope: h.col.Key})
	if err != nil {
		h.warn.add("the sitemap %s, named by %s, could not be read: %s; the pages it lists are kept as they were", u, index, trimSitemap(err))
		return nil, false
	}
	if doc.Index {
		h.warn.add("the sitemap index %s names another index, %s, which was not read: indexes are read one level deep", index, u)
		return nil, true
	}
	h.skipped(u, doc.Skipped)
	return doc.URLs, true
}

// skipped says what a sitemap listed that is not followed.
func (h *smHarvest) skipped(src string, s sitemap.Skips) {
	if s.OtherHost > 0 {
		h.warn.add("the sitemap %s lists %d pages on other hosts; they were skipped", src, s.OtherHost)
	}
	if s.Invalid > 0 {
		h.warn.add("the sitemap %s lists %d entries that are not usable page addresses; they were skipped", src, s.Invalid)
	}
	if s.OverCap > 0 && s.OverCap != s.Total() {
		h.warn.add("the sitemap %s lists more pages than a sitemap may (%d); the rest were skipped", src, sitemap.MaxURLs)
	}
	if s.BadLastmod > 0 {
		h.warn.add("the sitemap %s gives %d pages a <lastmod> that is not a W3C datetime; those dates were ignored", src, s.BadLastmod)
	}
}
