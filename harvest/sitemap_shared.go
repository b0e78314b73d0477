package harvest

import (
	"context"

	"tidings/pagetext"
)

// sharedSample is how many stored snapshots of the site's other pages
// tell which lines most pages share.
const sharedSample = 16

// sharedLines returns the lines shared by a quarter of the texts on
// either side of this harvest, two at least: those read now, and those read before (of
// the pages read now, and a sample of the others'). A generated site's
// navigation and footer are such lines; on one side alone, since a new
// page or a new build changes them on every page at once.
func (h *smHarvest) sharedLines(ctx context.Context) pagetext.LineSet {
	var before, after []string
	changed := map[string]bool{}
	for _, r := range h.reads {
		switch r.verdict {
		case readChanged:
			changed[r.url] = true
			before, after = append(before, r.old), append(after, r.text)
		case readCreated:
			after = append(after, r.text)
		}
	}
	if len(changed) == 0 {
		return pagetext.LineSet{}
	}
	var sample []string
	urls := h.knownBefore()
	step := max(len(urls)/sharedSample, 1)
	for i := 0; i < len(urls) && len(sample) < sharedSample; i += step {
		if !changed[urls[i]] {
			sample = append(sample, urls[i])
		}
	}
	if snaps, err := h.h.store.Snapshots(ctx, h.site.ID, sample); err == nil {
		for _, s := range snaps {
			if t, err := pagetext.Decompress(s.Text, maxTextRead); err == nil && t != "" {
				before = append(before, t)
			}
		}
	}
	return pagetext.QuarterShared(before).Union(pagetext.QuarterShared(after))
}

// knownBefore lists, sorted, the pages known when the harvest began.
func (h *smHarvest) knownBefore() []string {
	return h.set.StoredURLs()
}
