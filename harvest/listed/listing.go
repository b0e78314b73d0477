package listed

import (
	"tidings/db"
	"tidings/pagetext"
)

// foldListings finds the pages read whose text changed only to list the
// pages of news of this harvest: a home page's latest posts, the list of
// posts, a tag's page, the post before a new one ("Next: …"). Their
// change is those pages' entries, not one of their own. A page lists
// another when its text names it by its title; a new page is news
// whatever names it, a changed one only when it does not name back the
// page that names it (two pages naming each other are both news).
func (h *Harvest) foldListings(shared pagetext.LineSet, noise *pagetext.Noise) {
	type news struct {
		url, text string
		named     pagetext.Named
		created   bool
	}
	var all []news
	for _, r := range h.reads {
		switch {
		case r.verdict == readChanged:
			all = append(all, news{r.url, r.now, pagetext.Named{Title: r.text.Title(), Texts: []string{r.old, r.now}}, false})
		case r.verdict == readCreated && r.text != nil:
			all = append(all, news{r.url, r.now, pagetext.Named{Title: r.text.Title(), Texts: []string{r.now}}, true})
		}
	}
	listings := map[string]bool{}
	for _, r := range h.reads {
		if r.verdict != readChanged {
			continue
		}
		var named []pagetext.Named
		for _, q := range all {
			if q.url != r.url && pagetext.Holds(r.now, q.named.Title) && (q.created || !pagetext.Holds(q.text, r.text.Title())) {
				named = append(named, q.named)
			}
		}
		listings[r.url] = noise.Listing(r.old, r.now, shared, named)
	}
	for i := range h.reads {
		if r := &h.reads[i]; r.verdict == readChanged && listings[r.url] {
			r.verdict = readListing
			r.text.SetTextChange(db.TextUnchanged, "")
		}
	}
}
