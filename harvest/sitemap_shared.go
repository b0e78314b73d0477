package harvest

import (
	"context"
	"strings"

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
func (h *smHarvest) sharedLines(ctx context.Context) map[string]bool {
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
		return nil
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
	out := map[string]bool{}
	for _, side := range [][]string{before, after} {
		for l := range mostShared(side) {
			out[l] = true
		}
	}
	return out
}

// mostShared returns the lines found in a quarter of texts, and in two
// at least. Not more: the text extractor finds the main text of some
// pages and falls back to the whole body on others, so the navigation
// and footer are in only some of the texts.
func mostShared(texts []string) map[string]bool {
	if len(texts) < 2 {
		return nil
	}
	count := map[string]int{}
	for _, t := range texts {
		seen := map[string]bool{}
		for _, l := range strings.Split(t, "\n") {
			if !seen[l] {
				seen[l] = true
				count[l]++
			}
		}
	}
	out := map[string]bool{}
	for l, n := range count {
		if n >= 2 && n*4 >= len(texts) {
			out[l] = true
		}
	}
	return out
}

// compareBesides compares two texts with the shared lines left out of
// both.
func compareBesides(a, b string, shared map[string]bool) pagetext.Diff {
	return pagetext.Compare(strings.Join(without(a, shared), "\n"), strings.Join(without(b, shared), "\n"))
}

func without(t string, shared map[string]bool) []string {
	var out []string
	for _, l := range strings.Split(t, "\n") {
		if !shared[l] {
			out = append(out, l)
		}
	}
	return out
}

// knownBefore lists, sorted, the pages known when the harvest began.
func (h *smHarvest) knownBefore() []string {
	return h.set.StoredURLs()
}
