package feedbuild

import (
	"cmp"
	"context"
	"fmt"
	"html"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// Entries of a feed come from four sources: the harvests (one digest per
// run, or one entry per change), the failing streaks (status entries),
// in a feed of one entry per change, each collection's "now following"
// entry (in a digest feed it is its first run's digest), and where the
// history a collection keeps ends. All
// are ordered newest first by one key, so a page boundary (a cursor)
// splits them the same way whatever each source holds.
const (
	srcHarvest   = 0
	srcStatus    = 1
	srcFollowing = 2
	// srcKept: where a collection's kept history ends (keptItems).
	srcKept = 3
)

// Cursor is the sort key of an entry: its time, its source, and an id
// unique within the source. A page holds the entries whose key is below
// its cursor; ParseCursor and String read and write it as ?before= does.
type Cursor struct {
	at  time.Time
	src int
	id  int64
}

func (a Cursor) compare(b Cursor) int {
	if c := a.at.Compare(b.at); c != 0 {
		return c
	}
	if c := cmp.Compare(a.src, b.src); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// String is the cursor as the ?before= parameter writes it.
func (a Cursor) String() string {
	return fmt.Sprintf("%d.%d.%d", a.at.UnixNano(), a.src, a.id)
}

// ParseCursor reads a ?before= value; only the form String writes is
// accepted, so each page has one URL.
func ParseCursor(s string) (Cursor, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return Cursor{}, false
	}
	var n [3]int64
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return Cursor{}, false
		}
		n[i] = v
	}
	c := Cursor{at: time.Unix(0, n[0]).UTC(), src: int(n[1]), id: n[2]}
	if c.src < srcHarvest || c.src > srcKept || c.id < 0 || c.String() != s {
		return Cursor{}, false
	}
	return c, true
}

// before is the part of the cursor's page bound that source src sees.
func (a Cursor) before(src int) db.Before {
	switch {
	case a.src > src:
		// Entries of a later source at the same time come first: every
		// entry of src at that time is still to come.
		return db.Before{At: a.at, ID: math.MaxInt64}
	case a.src < src:
		// ... and those of an earlier one last: none of src's at that
		// time is (ids start at 1).
		return db.Before{At: a.at, ID: 0}
	}
	return db.Before{At: a.at, ID: a.id}
}

// feedItem is an entry with its sort key.
type feedItem struct {
	key   Cursor
	entry feeds.Entry
	// brief is the entry's content with its diff in a line, for a
	// document whose diffs came to feedDiffCost; "" for an entry without
	// a diff.
	brief string
}

// feedPage is one document's entries.
type feedPage struct {
	entries []feeds.Entry
	next    *Cursor   // where the next (older) page starts; nil on the last
	updated time.Time // when the feed last gained an entry
}

// loadPage loads the entries of one page: at most FeedEntries, older than
// before when it is set.
func (b *Builder) loadPage(ctx context.Context, spec *Spec, perPage bool, before *Cursor, stamp db.FeedStamp, cols map[int64]db.Collection) (*feedPage, error) {
	n := b.opts.FeedEntries
	bound := func(src int) db.Before {
		if before == nil {
			return db.Before{}
		}
		return before.before(src)
	}
	items, err := b.harvestItems(ctx, spec, perPage, bound(srcHarvest), n+1, cols)
	if err != nil {
		return nil, err
	}
	if perPage {
		following, err := b.store.FollowingBefore(ctx, spec.Scope, bound(srcFollowing), n+1)
		if err != nil {
			return nil, err
		}
		for _, d := range following {
			items = append(items, feedItem{key: Cursor{d.Run.FinishedAt, srcFollowing, d.Run.ID}, entry: b.digestEntry(spec.ids, d, cols[d.Run.CollectionID])})
		}
	}
	p := &feedPage{updated: spec.Created}
	if stamp.LastAdded != nil && stamp.LastAdded.After(p.updated) {
		p.updated = *stamp.LastAdded
	}
	outages, err := b.store.Outages(ctx, spec.Scope, b.opts.FailingAfter)
	if err != nil {
		return nil, err
	}
	for _, o := range outages {
		for _, it := range b.statusItems(spec.ids, o, cols[o.CollectionID]) {
			if it.key.at.After(p.updated) {
				p.updated = it.key.at
			}
			if before == nil || it.key.compare(*before) < 0 {
				items = append(items, it)
			}
		}
	}
	kept, err := b.keptItems(ctx, spec.Scope, cols)
	if err != nil {
		return nil, err
	}
	for _, it := range kept {
		if before == nil || it.key.compare(*before) < 0 {
			items = append(items, it)
		}
	}
	slices.SortFunc(items, func(x, y feedItem) int { return y.key.compare(x.key) })
	if len(items) > n {
		items = items[:n]
		p.next = &items[n-1].key
	}
	spent := 0
	for _, it := range items {
		if it.brief != "" {
			cost := feedCost(it.entry.ContentHTML)
			if spent+cost > feedDiffCost {
				it.entry.ContentHTML, cost = it.brief, feedCost(it.brief)
			}
			spent += cost
		}
		p.entries = append(p.entries, it.entry)
	}
	return p, nil
}

// harvestItems loads up to limit digests, or with perPage changes, older
// than bound.
func (b *Builder) harvestItems(ctx context.Context, spec *Spec, perPage bool, bound db.Before, limit int, cols map[int64]db.Collection) ([]feedItem, error) {
	var items []feedItem
	if perPage {
		changes, err := b.store.FeedChangesBefore(ctx, spec.Scope, bound, limit)
		if err != nil {
			return nil, err
		}
		names := pageNames(changes)
		for _, ch := range changes {
			col := cols[ch.CollectionID]
			e, brief := b.pageEntry(spec.ids, ch, col)
			e.Title = feeds.PageTitle(ch.Kind, names[ch.ID], ch.URL)
			if spec.Scope.UserID != 0 {
				// A person's feed of everything mixes sites: each entry
				// says whose page it is.
				site := siteName(col)
				e.Title += " — " + site
				if e.Author == "" {
					e.Author = site
				}
			}
			items = append(items, feedItem{Cursor{ch.Datetime, srcHarvest, ch.ID}, e, brief})
		}
		if spec.Scope.UserID != 0 {
			news := make([]siteNews, len(changes))
			for i, ch := range changes {
				news[i] = siteNews{cols[ch.CollectionID].SiteID, ch.Datetime}
			}
			return items, b.sayQuiet(ctx, items, news)
		}
		return items, nil
	}
	digests, err := b.store.DigestsBefore(ctx, spec.Scope, bound, limit)
	if err != nil {
		return nil, err
	}
	news := make([]siteNews, 0, len(digests))
	for _, d := range digests {
		items = append(items, feedItem{key: Cursor{d.Run.FinishedAt, srcHarvest, d.Run.ID}, entry: b.digestEntry(spec.ids, d, cols[d.Run.CollectionID])})
		n := siteNews{site: cols[d.Run.CollectionID].SiteID}
		if k := len(d.Changes); k > 0 && !d.Following {
			n.at = d.Changes[k-1].Datetime // its oldest change
		}
		news = append(news, n)
	}
	if spec.Scope.UserID != 0 {
		return items, b.sayQuiet(ctx, items, news)
	}
	return items, nil
}

// siteNews is what an entry tells of a site: its change at at, the
// oldest of the entry's (zero for an entry of no change).
type siteNews struct {
	site int64
	at   time.Time
}

// sayQuiet starts the content of each entry of items (newest first, news
// the same) whose site had been silent for long (QuietAfter) with why
// ("First change in 4 months."): in a feed that mixes sites, a site that
// changes once in months says more when it does than one that changes
// daily. Readers order entries by date, so the entry says it. One lookup
// a site, for its oldest entry; the others' previous change is the next
// older entry's.
func (b *Builder) sayQuiet(ctx context.Context, items []feedItem, news []siteNews) error {
	oldest := map[int64]time.Time{}
	for _, n := range news {
		if !n.at.IsZero() {
			oldest[n.site] = n.at
		}
	}
	asks := make([]db.QuietAsk, 0, len(oldest))
	for site, at := range oldest {
		asks = append(asks, db.QuietAsk{SiteID: site, Before: at})
	}
	last, err := b.store.ChangedBefore(ctx, asks)
	if err != nil {
		return err
	}
	for i := len(news) - 1; i >= 0; i-- {
		n := news[i]
		if n.at.IsZero() {
			continue
		}
		if prev, ok := last[n.site]; ok {
			if why := QuietReason(n.at, prev, true, time.Time{}); why != "" {
				items[i].entry.ContentHTML = "<p><strong>" + html.EscapeString(why) + ".</strong></p>\n" + items[i].entry.ContentHTML
				if items[i].brief != "" {
					items[i].brief = "<p><strong>" + html.EscapeString(why) + ".</strong></p>\n" + items[i].brief
				}
			}
		}
		last[n.site] = n.at
	}
	return nil
}

// digestEntry is IFCC-0001 step 5: one entry summarising a harvest run,
// dated by the end of the run.
//
// A collection's first complete harvest is its "now following" entry
// instead, in both entry modes with one id: it names the collection and
// its pages and lists the newest changes known then, whatever their age,
// so that a reader following a quiet site sees what it is and that it
// works.
func (b *Builder) digestEntry(ids idScope, d db.Digest, col db.Collection) feeds.Entry {
	items := make([]feeds.DigestItem, len(d.Changes))
	var tags []string
	for i, ch := range d.Changes {
		items[i] = digestItem(ch)
		items[i].Text = textLine(ch)
		tags = append(tags, ch.Tags...)
	}
	e := feeds.Entry{
		ID:          b.entryID(ids, runPart(col, d.Run)),
		Title:       feeds.DigestTitle(col.Title, items),
		Updated:     d.Run.FinishedAt,
		Link:        digestLink(d, col),
		ContentHTML: feeds.DigestHTML(items),
		Author:      sharedAuthor(d.Changes),
		Categories:  tags,
	}
	if d.Following {
		e.Title = feeds.FollowingTitle(col.Title, d.Run.Pages)
		e.ContentHTML = feeds.FollowingHTML(col.Title, items)
		e.Link = CollectionHome(col)
		if d.Omitted > 0 {
			e.ContentHTML += feeds.DigestMoreHTML(d.Omitted, b.URL(collectionPage(col)))
		}
		return e
	}
	if d.Omitted > 0 {
		// The store gave the newest db.DigestChanges; the collection's
		// page has the rest.
		e.Title = feeds.DigestTitleOf(col.Title, items, d.Pages, d.Kind)
		e.ContentHTML += feeds.DigestMoreHTML(d.Omitted, b.URL(collectionPage(col)))
	}
	return e
}

// digestLink is where a digest entry leads: the page when the run changed
// only one page and it is still there, else the collection's home.
func digestLink(d db.Digest, col db.Collection) string {
	if (d.Omitted > 0 && d.Pages != 1) || len(d.Changes) == 0 {
		return CollectionHome(col)
	}
	// Changes are newest first, so the first is the page's latest state.
	page := d.Changes[0]
	for _, ch := range d.Changes[1:] {
		if ch.URL != page.URL {
			return CollectionHome(col)
		}
	}
	if feeds.SafeURL(page.URL) == "" {
		// A digest always leads somewhere: the renderer would drop the link.
		return CollectionHome(col)
	}
	return pageLink(page, col)
}

// pageLink is where an entry about a change leads: the page, unless the
// change deleted it (the entry would lead to a "not found"); then the
// collection's home.
func pageLink(ch db.Change, col db.Collection) string {
	if strings.EqualFold(strings.TrimSpace(ch.Kind), "deleted") {
		return CollectionHome(col)
	}
	return ch.URL
}

// pageEntry is one change, dated by the change, and its content with its
// diff in a line (feedItem.brief).
func (b *Builder) pageEntry(ids idScope, ch db.Change, col db.Collection) (feeds.Entry, string) {
	changeURL := ""
	if col.PublicID != "" && ch.ID != 0 {
		changeURL = b.URL(ChangePage(col, ch.ID))
	}
	text, brief := changeText(ch, changeURL)
	e := feeds.Entry{
		ID:          b.entryID(ids, changePart(col, ch)),
		Title:       feeds.PageTitle(ch.Kind, ch.Title, ch.URL),
		Updated:     ch.Datetime,
		Link:        pageLink(ch, col),
		ContentHTML: feeds.PageHTML(digestItem(ch), ch.Summary, text),
		Summary:     ch.Summary,
		Author:      ch.Author,
		Language:    ch.Language,
		Categories:  ch.Tags,
	}
	if brief != "" {
		brief = feeds.PageHTML(digestItem(ch), ch.Summary, brief)
	}
	return e, brief
}

// pageNames names each change's page for its entry's title: its title,
// and when another page of the document has the same title (a site whose
// pages all carry its name), its path too, so that the entries can be
// told apart in a list of titles.
func pageNames(changes []db.Change) map[int64]string {
	urls := map[string]map[string]bool{}
	for _, ch := range changes {
		t := strings.TrimSpace(feeds.CleanText(ch.Title))
		if urls[t] == nil {
			urls[t] = map[string]bool{}
		}
		urls[t][ch.URL] = true
	}
	names := make(map[int64]string, len(changes))
	for _, ch := range changes {
		t := strings.TrimSpace(feeds.CleanText(ch.Title))
		names[ch.ID] = t
		if t != "" && len(urls[t]) > 1 {
			names[ch.ID] = t + " (" + pathOf(ch.URL) + ")"
		}
	}
	return names
}

// pathOf is the path and query of an address, which tell a site's pages
// apart.
func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return u
	}
	s := p.EscapedPath()
	if s == "" {
		s = "/"
	}
	if p.RawQuery != "" {
		s += "?" + p.RawQuery
	}
	return s
}

// siteName is how an entry of a feed that mixes sites names the site of
// a collection: the collection's title, else its site's host.
func siteName(col db.Collection) string {
	if t := strings.TrimSpace(feeds.CleanText(col.Title)); t != "" {
		return t
	}
	if u, err := url.Parse(col.SiteURL); err == nil && u.Host != "" {
		return u.Host
	}
	return col.SiteURL
}

func digestItem(ch db.Change) feeds.DigestItem {
	return feeds.DigestItem{URL: ch.URL, Kind: ch.Kind, Datetime: ch.Datetime, Title: ch.Title, Language: ch.Language}
}

// sharedAuthor is the author every change names, or "".
func sharedAuthor(changes []db.Change) string {
	if len(changes) == 0 {
		return ""
	}
	for _, ch := range changes[1:] {
		if ch.Author != changes[0].Author {
			return ""
		}
	}
	return changes[0].Author
}

// statusItems are the status entries of a failing streak: one when
// harvests saw it last longer than FailingAfter, one more when it ended.
func (b *Builder) statusItems(ids idScope, o db.Outage, col db.Collection) []feedItem {
	streak := outagePart(col, o)
	page := b.URL(collectionPage(col))
	out := []feedItem{{
		key: Cursor{o.NoticedAt, srcStatus, 2 * o.ID},
		entry: feeds.Entry{
			ID:          b.entryID(ids, streak+"/failing"),
			Title:       feeds.FailingTitle(col.Title, o.StartedAt),
			Updated:     o.NoticedAt,
			Link:        page,
			ContentHTML: feeds.FailingHTML(o.StartedAt, o.NoticedError),
		},
	}}
	if o.EndedAt != nil {
		out = append(out, feedItem{
			key: Cursor{*o.EndedAt, srcStatus, 2*o.ID + 1},
			entry: feeds.Entry{
				ID:          b.entryID(ids, streak+"/recovered"),
				Title:       feeds.RecoveredTitle(col.Title),
				Updated:     *o.EndedAt,
				Link:        page,
				ContentHTML: feeds.RecoveredHTML(o.StartedAt, *o.EndedAt),
			},
		})
	}
	return out
}
