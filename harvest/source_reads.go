package harvest

import (
	"context"
	"slices"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/pagetext"
	"tidings/source"
)

// What a source in a package of its own needs beside source_api.go when
// it keeps its documents parsed (a memo and a digest with their
// validators, so that one served again is not parsed again), names where
// the site's change information is, and confirms what a list of pages
// says by reading the pages.

// SourceURL is where this discovery found the site's change information
// so far; "" when nowhere yet.
func (d *SiteDiscovery) SourceURL() string { return d.d.SourceURL }

// SetSourceURL records where the site's change information is (for
// ResourceSync, its Source Description or their index): the next
// discovery starts there (Site().SourceURL). A source that could not look
// this time sets the stored one again, so that it stands.
func (d *SiteDiscovery) SetSourceURL(u string) { d.d.SourceURL = u }

// Now is when the harvest's clock says it is.
func (d *SiteDiscovery) Now() time.Time { return d.h.opts.Now() }

// Settings are the settings of the source named (its own name).
func (d *SiteDiscovery) Settings(name string) source.Settings { return d.h.opts.Sources.Of(name) }

// SetSiteTitle names the site; see WantTitle.
func (d *SiteDiscovery) SetSiteTitle(title string) { d.d.SiteTitle = title }

// KeepStored keeps the stored collections of the source named as they
// are: it did not look this time.
func (d *SiteDiscovery) KeepStored(name string) { d.keep[name] = true }

// Fetch gets url conditionally, as CollectionRun.Fetch does, returning on
// a 304 the memo the earlier fetch left. Nothing is kept unless the
// source calls Remember.
//
// The address given is read once a discovery: whichever of Fetch and
// Get (or Page) reads it first, the other is answered from that read.
func (d *SiteDiscovery) Fetch(ctx context.Context, role, url string) (*fetch.Response, string, error) {
	if resp := d.given(url); resp != nil {
		return resp, "", nil
	}
	resp, memo, err := d.s.fetch(ctx, role, url)
	if err == nil && url == d.input && !resp.NotModified {
		if _, ok := d.cache[url]; !ok {
			d.cache[url] = cached{resp: resp}
		}
	}
	return resp, memo, err
}

// Given takes what discovery read whole of url, the address given, out
// of the site harvest: the harvest that reads it next uses this copy
// instead of fetching it again. ok is false when discovery read nothing
// of url.
func (j *CollectionRun) Given(url string) (resp *fetch.Response, ok bool) {
	resp, ok = j.s.bodies[url]
	if ok {
		delete(j.s.bodies, url)
		// Read by this harvest, once: the run says so as if it had
		// fetched it.
		j.s.documents++
	}
	return resp, ok
}

// Given is what this discovery read whole of url when url is the address
// given; see CollectionRun.Given.
func (d *SiteDiscovery) Given(url string) (*fetch.Response, bool) {
	resp := d.given(url)
	return resp, resp != nil
}

// FetchState is what was stored of the last fetch of url.
func (d *SiteDiscovery) FetchState(url string) (db.FetchState, bool) {
	st, ok := d.s.known[url]
	return st, ok
}

// Remember keeps the fetch state of url with the site's run, validators
// or not: the digest of its body recognises it served again byte for
// byte, and the memo says what it held.
func (d *SiteDiscovery) Remember(url string, resp *fetch.Response, memo, digest string) {
	d.s.remember(url, resp, memo, digest)
}

// Forget drops what is known of url, so that its next fetch is
// unconditional.
func (d *SiteDiscovery) Forget(url string) { d.s.forget(url) }

// PageTitle is the <title> of the HTML page at u, or "" (a page that
// cannot be read leaves a name the address, which is no problem to
// report): for naming what nothing else names.
func (d *SiteDiscovery) PageTitle(ctx context.Context, u string) string { return d.pageTitle(ctx, u) }

// Passed returns what this discovery passed on under key; see Pass.
func (d *SiteDiscovery) Passed(key string) (any, bool) {
	v, ok := d.s.passed[key]
	return v, ok
}

// FetchState is what was stored of the last fetch of url.
func (j *CollectionRun) FetchState(url string) (db.FetchState, bool) {
	st, ok := j.s.known[url]
	return st, ok
}

// Remember keeps the fetch state of url with the run, validators or not:
// the digest of its body recognises it served again byte for byte, and
// the memo says what it held.
func (j *CollectionRun) Remember(url string, resp *fetch.Response, memo, digest string) {
	j.s.remember(url, resp, memo, digest)
}

// ReadAgainIfCut drops the fetch state kept of url should LimitChanges
// leave changes for the next harvest: some of them are in it, and the
// next harvest must not take it for unchanged.
func (j *CollectionRun) ReadAgainIfCut(url string) {
	if j.s.againIfCut == nil {
		j.s.againIfCut = map[string]bool{}
	}
	j.s.againIfCut[url] = true
}

// MarkStored tells the run that c is stored already, so that Record skips
// it: a source that reads again the changes dated at its watermark (more
// of that instant may have come) would otherwise pay a page fetch for
// each, whose change the store then drops.
func (j *CollectionRun) MarkStored(c db.Change) {
	at := c.Datetime.UTC()
	j.seen[changeKey{c.URL, c.Kind, at}] = true
	if at.Equal(at.Truncate(time.Millisecond)) {
		// Stored in milliseconds, perhaps by a tidings that kept no
		// more: the same change read again in microseconds is this one.
		if j.seenMs == nil {
			j.seenMs = map[changeKey]bool{}
		}
		j.seenMs[changeKey{c.URL, c.Kind, at}] = true
	}
}

// Cutoff is the first harvest's window: on a collection's first harvest,
// a change dated before it is stored as already seen.
func (j *CollectionRun) Cutoff() time.Time { return j.cutoff }

// Changes are the changes recorded so far, as the run keeps them.
func (j *CollectionRun) Changes() []db.Change { return slices.Clone(j.changes) }

// ReadsPages reports whether pages are read for their text (page
// snapshots are not turned off): without, a source that confirms what a
// list says by reading the page takes the list's word.
func (j *CollectionRun) ReadsPages() bool { return !j.h.opts.Snapshots.Off }

// PageFetchesLeft is what is left of the site harvest's budget of page
// fetches (--page-fetches), which the snapshots of every collection's
// changes share; 0 once the site asked for a pause.
func (j *CollectionRun) PageFetchesLeft() int {
	if j.reading == nil || j.reading.stop {
		return 0
	}
	return j.reading.left
}

// PageText is what reading a page said of its text: the change of the
// page in the feed shows it (see UsePageText).
type PageText struct{ sh *pageNote }

// TextChange is db.TextChanged, db.TextUnchanged, or db.TextUnknown
// (nothing to compare with: the page's first reading).
func (t *PageText) TextChange() string { return t.sh.textChange }

// Title is the page's title as read.
func (t *PageText) Title() string { return t.sh.title }

// SetTextChange changes what the page's change shows, when the source
// judges the text further: a change made only of lines most of the site's
// pages share is none, and its diff is better without them.
func (t *PageText) SetTextChange(change, diff string) { t.sh.textChange, t.sh.diff = change, diff }

// Noise is what the site's pages hold that changes without news (a
// person's ignore rules for the site, what was learned of it), for a
// source that compares texts itself: a copy, which it may extend with
// what it learns of the pages it read (pagetext.Noise).
func (j *CollectionRun) Noise() *pagetext.Noise {
	if j.reading.noise() == nil {
		return &pagetext.Noise{}
	}
	return j.reading.noise().Clone()
}

// Learned keeps, as the site's rules, the shapes of noise lines a source
// learned from the pages it compared (pagetext.LearnShapes), so that its
// later harvests, which may read only a few pages, know them, and people
// see them on the site's page.
func (j *CollectionRun) Learned(shapes map[string]bool) {
	for s := range shapes {
		if n := j.reading.noise(); n == nil || !n.Knows(s) {
			j.learned = append(j.learned, s)
		}
	}
	slices.Sort(j.learned)
}

// ReadPageText reads page u with the page reader, after TakePageFetch,
// conditionally on its previous snapshot prev (had: there is one), and
// compares its text with it as a change of kind shows it. The snapshot is
// nil when nothing new was read (not modified, or not readable, which is
// warned of); a source that stores it puts it in its Result.
func (j *CollectionRun) ReadPageText(ctx context.Context, u, kind string, prev db.Snapshot, had bool) (*PageText, *db.Snapshot) {
	sh, snap := j.h.readAndCompare(ctx, j, j.reading, u, kind, prev, had)
	return &PageText{sh}, snap
}

// UsePageText makes t what this site harvest read of page u: the page's
// changes show it, and it is not read again.
func (j *CollectionRun) UsePageText(u string, t *PageText) {
	if j.reading != nil {
		j.reading.taken[u] = t.sh
	}
}

// HasPageText reports whether this site harvest read page u already.
func (j *CollectionRun) HasPageText(u string) bool {
	return j.reading != nil && j.reading.taken[u] != nil
}

// FetchPage gets page u unconditionally, after TakePageFetch, to see
// whether it is still there. A site that asks for a pause (429, 503) is
// asked for no more pages in this site harvest, and its next harvest
// waits as asked.
func (j *CollectionRun) FetchPage(ctx context.Context, u string) (*fetch.Response, error) {
	resp, _, err := j.h.getPage(ctx, u, db.Snapshot{}, false, ReadOptions{})
	if err != nil {
		j.NoteFailure(err)
	}
	return resp, err
}

// SiteTitle is the site's name as discovery found it so far; "" when no
// source named it.
func (d *SiteDiscovery) SiteTitle() string { return d.d.SiteTitle }
