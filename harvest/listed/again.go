package listed

import (
	"context"

	"tidings/harvest"
	"tidings/pagetext"
)

// maxReadAgain bounds the pages read twice in one harvest (readAgain).
const maxReadAgain = 50

// readAgain reads once more, after the harvest's other pages, each page
// whose text changed, conditionally on what was just read: a page that
// answers 304 or the same text was edited; what differs between the
// two reads changes at every read (a quote of the day, a webring's
// random member, a rotating banner), and is kept as the site's widgets
// (pagetext.Widgets), left out of every comparison from now on, this
// one's included. Each read again is a page fetch of the harvest's;
// past the budget, a change is judged as it is.
func (h *Harvest) readAgain(ctx context.Context, clean func(string) string, noise *pagetext.Noise) {
	learned := map[string]bool{}
	n := 0
	for _, r := range h.reads {
		if r.verdict != readChanged || r.snap == nil || n == maxReadAgain || ctx.Err() != nil || clean(r.old) == clean(r.now) {
			continue
		}
		if !h.TakePageFetch() {
			break
		}
		n++
		prev := *r.snap
		again, err := h.ReadPage(ctx, r.url, &prev, harvest.ReadOptions{Conditional: true, Extract: true})
		if err != nil || again.NotModified || again.Text == nil || !again.Text.HasText() {
			continue
		}
		for _, w := range pagetext.Widgets(r.now, again.Text.Text, noise) {
			learned[w] = true
		}
	}
	if len(learned) > 0 {
		h.Learned(learned)
		noise.Learn(learned)
	}
}
