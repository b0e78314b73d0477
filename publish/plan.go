package publish

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"tidings/feeds"
	"tidings/rsync"
)

// run is one Publish call.
type run struct {
	o     *Options
	site  *site
	now   time.Time
	dater *dater
	res   *Result
}

// plan is what one collection's documents become.
type plan struct {
	l         layout
	col       describedCollection
	res       CollectionResult
	at        time.Time
	resources []resource
	lists     lists
	adds      []entry // the changes the run found
	// changeListURL is what the capability list names: the change list,
	// or its index once lists are archived.
	changeListURL string
	texts         texts         // the pages' texts, for the next run's feed
	feed          []feeds.Entry // the change feed's entries, newest first
}

// plan compares one collection with what the last run wrote and dates the
// changes.
func (r *run) plan(ctx context.Context, rel string) (*plan, error) {
	l := newLayout(r.o, rel)
	st, err := readState(r.o.Dir, l)
	if err != nil {
		return nil, err
	}
	var pages []*page
	for i := range r.site.pages {
		if inCollection(rel, r.site.pages[i].rel) {
			pages = append(pages, &r.site.pages[i])
		}
	}
	if len(pages) > maxPages {
		return nil, usagef("the collection %s/ has %d pages, more than the %d a resource list may hold; split it with --collection", rel, len(pages), maxPages)
	}
	p := &plan{l: l, at: st.at}
	if p.at.IsZero() {
		p.at = r.now
	}
	p.col = describedCollection{capabilityList: l.docURL(capabilityListName), describes: l.describes()}
	if r.site.indexes[rel] {
		p.col.describedBy = p.col.describes
	}
	p.res = CollectionResult{Path: rel, URL: p.col.describes, CapabilityList: p.col.capabilityList, Pages: len(pages), First: !st.found}
	p.lists = lists{archives: st.archives, last: st.lastArchive, from: st.from, current: st.current}
	if !st.hasList {
		p.lists.from = r.now
	}
	var adds []entry
	if st.found {
		adds, err = r.diff(ctx, p, st, pages)
	} else {
		adds, err = r.begin(ctx, p, st, pages)
	}
	if err != nil {
		return nil, err
	}
	adds = dropRepeated(st.current, adds)
	if err := r.changeFeed(ctx, p, st, pages, adds); err != nil {
		return nil, err
	}
	for _, e := range adds {
		switch e.kind {
		case rsync.ChangeCreated:
			p.res.Created++
		case rsync.ChangeUpdated:
			p.res.Updated++
		case rsync.ChangeDeleted:
			p.res.Deleted++
		}
	}
	p.lists.add(adds, r.now, r.o.MaxListEntries)
	p.res.Archived = len(p.lists.closed)
	p.adds = adds
	p.changeListURL = l.docURL(changeListName)
	if len(p.lists.archives) > 0 {
		p.changeListURL = l.docURL(changeListIndexName)
	}
	return p, nil
}

// begin is a collection's first run: every page is listed, dated by its
// last commit or now, and the change list is empty unless --history fills
// it from the commits.
func (r *run) begin(ctx context.Context, p *plan, st *state, pages []*page) ([]entry, error) {
	p.at = r.now
	rels := make([]string, len(pages))
	for i, pg := range pages {
		rels[i] = pg.rel
	}
	dates, err := r.dater.dates(ctx, rels)
	if err != nil {
		return nil, err
	}
	for _, pg := range pages {
		p.resources = append(p.resources, resource{url: pg.url, lastmod: dates[pg.rel].at, hash: pg.hash, length: pg.length})
	}
	sortResources(p.resources)
	if r.o.History == 0 || st.hasList {
		return nil, nil
	}
	since := r.now.Add(-r.o.History)
	p.lists.from = since
	return r.history(ctx, p.l.rel, since, pages)
}

// history reads the changes of the collection's pages from the commits
// since since, oldest first. A page as it is in the folder now carries its
// hash where its last change is the one committed.
func (r *run) history(ctx context.Context, rel string, since time.Time, pages []*page) ([]entry, error) {
	var out []entry
	var tooMany bool
	err := r.dater.git.log(ctx, []string{"--reverse", "--since=" + since.Format(time.RFC3339)}, func(e logEntry) bool {
		if !inCollection(rel, e.rel) || !isPage(r.o, e.rel) {
			return true
		}
		kind := rsync.ChangeUpdated
		switch e.status {
		case 'A':
			kind = rsync.ChangeCreated
		case 'D':
			kind = rsync.ChangeDeleted
		}
		at := e.at
		if at.After(r.now) {
			at = r.now
		}
		if len(out) >= maxHistory {
			tooMany = true
			return false
		}
		out = append(out, entry{url: pageURL(r.o.BaseURL, e.rel), kind: kind, at: at, note: cleanNote(e.subject), rel: e.rel, commit: e.commit})
		return true
	})
	if err != nil {
		return nil, err
	}
	if tooMany {
		return nil, usagef("the commits of the last %s change more than %d pages; give a shorter --history", r.o.History, maxHistory)
	}
	return out, nil
}

// diff compares the pages with the resource list of the last run.
func (r *run) diff(ctx context.Context, p *plan, st *state, pages []*page) ([]entry, error) {
	type pending struct {
		e   entry
		rel string
	}
	var changed []pending
	var toDate []string
	now := map[string]bool{}
	for _, pg := range pages {
		now[pg.url] = true
		prev, ok := st.resources[pg.url]
		switch {
		case !ok:
			changed = append(changed, pending{entry{url: pg.url, kind: rsync.ChangeCreated, hash: pg.hash, length: pg.length, rel: pg.rel}, pg.rel})
		case prev.hash != pg.hash:
			changed = append(changed, pending{entry{url: pg.url, kind: rsync.ChangeUpdated, hash: pg.hash, length: pg.length, rel: pg.rel}, pg.rel})
		case prev.lastmod.IsZero():
			toDate = append(toDate, pg.rel)
		}
	}
	for u := range st.resources {
		if now[u] {
			continue
		}
		rel, _ := relOfURL(r.o.BaseURL, u)
		changed = append(changed, pending{entry{url: u, kind: rsync.ChangeDeleted, rel: rel}, rel})
	}
	for _, c := range changed {
		toDate = append(toDate, c.rel)
	}
	dates, err := r.dater.dates(ctx, toDate)
	if err != nil {
		return nil, err
	}
	byURL := map[string]time.Time{}
	var adds []entry
	for _, c := range changed {
		c.e.at = dates[c.rel].at
		c.e.note = cleanNote(dates[c.rel].subject)
		byURL[c.e.url] = c.e.at
		adds = append(adds, c.e)
	}
	if len(adds) > 0 {
		p.at = r.now
	}
	for _, pg := range pages {
		res := resource{url: pg.url, hash: pg.hash, length: pg.length, lastmod: st.resources[pg.url].lastmod}
		if t, ok := byURL[pg.url]; ok {
			res.lastmod = t
		} else if res.lastmod.IsZero() {
			res.lastmod = dates[pg.rel].at
		}
		p.resources = append(p.resources, res)
	}
	sortResources(p.resources)
	slices.SortFunc(adds, compareEntries)
	return adds, nil
}

func sortResources(rs []resource) {
	slices.SortFunc(rs, func(a, b resource) int { return cmp.Compare(a.url, b.url) })
}

// dropRepeated leaves out a change the open list already ends with for
// that page: a run that stopped after writing the change list, before the
// resource list, finds the same changes again.
func dropRepeated(current, adds []entry) []entry {
	last := map[string]entry{}
	for _, e := range current {
		if prev, ok := last[e.url]; !ok || !e.at.Before(prev.at) {
			last[e.url] = e
		}
	}
	out := adds[:0]
	for _, a := range adds {
		if prev, ok := last[a.url]; ok && prev.kind == a.kind && prev.hash == a.hash {
			continue
		}
		out = append(out, a)
	}
	return out
}

// String is the summary line of a collection.
func (c CollectionResult) String() string {
	name := c.Path + "/"
	if c.Path == "" {
		name = "the whole site"
	}
	s := fmt.Sprintf("%s (%s): %d page(s)", name, c.URL, c.Pages)
	switch {
	case c.First && c.Changes() == 0:
		s += "; history begins now"
	case c.First:
		s += fmt.Sprintf("; history begins with %d created, %d updated, %d deleted from the commits", c.Created, c.Updated, c.Deleted)
	default:
		s += fmt.Sprintf("; %d created, %d updated, %d deleted", c.Created, c.Updated, c.Deleted)
	}
	if c.Archived > 0 {
		s += fmt.Sprintf("; %d change list(s) archived", c.Archived)
	}
	return s
}
