package pages

import (
	"context"

	"tidings/fetch"
	"tidings/harvest"
	"tidings/pagetext"
)

// maxReadAgain bounds the pages read twice in one harvest (readAgain).
const maxReadAgain = 50

// readAgain reads once more, after the harvest's other pages, each known
// page whose text changed, conditionally on what was just read: a page
// that answers 304 or the same text was edited; what differs between
// the two reads changes at every read (a quote of the day, a webring's
// random member, a rotating banner), and is kept as the site's widgets
// (pagetext.Widgets), left out of every comparison from now on, this
// one's included. Each read again is a page fetch of the harvest's.
func (h *pagesHarvest) readAgain(ctx context.Context, clean func(string) string, noise *pagetext.Noise, olds map[string]string) {
	learned := map[string]bool{}
	n := 0
	for _, r := range h.reads {
		if !r.known || n == maxReadAgain || ctx.Err() != nil {
			continue
		}
		old, ok := olds[r.id]
		if known, stored := h.set.Stored(r.id); !ok || !stored || known.Hash == r.snap.TextHash || clean(old) == clean(r.snap.Text) {
			continue
		}
		if !h.spend() {
			return
		}
		n++
		prev := r.stored
		again, err := h.ReadPage(ctx, r.id, &prev, harvest.ReadOptions{WholeBody: true, Conditional: true, Extract: true, Types: fetch.PageTypes})
		if again.NotModified {
			h.CountNotModified()
		}
		if err != nil || again.NotModified || again.Text == nil || !again.Text.HasText() {
			continue
		}
		for _, w := range pagetext.Widgets(r.snap.Text, again.Text.Text, noise) {
			learned[w] = true
		}
	}
	if len(learned) > 0 {
		h.Learned(learned)
		noise.Learn(learned)
	}
}
