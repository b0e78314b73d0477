package pages

import (
	"tidings/db"
	"tidings/pagetext"
)

// foldListings finds the known pages whose text changed only to list the
// pages of news of this harvest: a home page's latest posts, a list of
// posts, the post before a new one ("Next: …"). Their change is those
// pages' entries, not one of their own. A page lists another when its
// text names it by its title; a new page is news whatever names it, a
// changed one only when it does not name back the page that names it
// (two pages naming each other are both news).
func (h *pagesHarvest) foldListings(shots map[string]*reading, shared pagetext.LineSet, noise *pagetext.Noise, olds map[string]string) {
	type news struct {
		id, text string
		named    pagetext.Named
		created  bool
	}
	var all []news
	for _, r := range h.reads {
		sh := shots[r.id]
		switch {
		case sh.textChange != db.TextChanged:
		case r.known:
			all = append(all, news{r.id, r.snap.Text, pagetext.Named{Title: r.snap.Title, Texts: []string{olds[r.id], r.snap.Text}}, false})
		default:
			all = append(all, news{r.id, r.snap.Text, pagetext.Named{Title: r.snap.Title, Texts: []string{r.snap.Text}}, true})
		}
	}
	var folded []string
	for _, r := range h.reads {
		old, ok := olds[r.id]
		if sh := shots[r.id]; !r.known || !ok || sh.textChange != db.TextChanged {
			continue
		}
		var named []pagetext.Named
		for _, q := range all {
			if q.id != r.id && pagetext.Holds(r.snap.Text, q.named.Title) && (q.created || !pagetext.Holds(q.text, r.snap.Title)) {
				named = append(named, q.named)
			}
		}
		if noise.Listing(old, r.snap.Text, shared, named) {
			folded = append(folded, r.id)
		}
	}
	// Judged all first: a listing is still news for the others.
	for _, id := range folded {
		shots[id].textChange, shots[id].diff = db.TextUnchanged, ""
	}
}
