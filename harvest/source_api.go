package harvest

import (
	"context"
	"errors"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/source"
	"tidings/urls"
)

// Source is the adapter of one source of change information, in a
// package of its own: it finds the source's collections on a site and
// harvests one collection at a time, seeing the core only through
// SiteDiscovery and CollectionRun.
type Source interface {
	// Name is the name its collections are stored under.
	Name() string
	// Discover adds the source's collections on the site to d. Finding
	// none is not an error. An error means the source's answer is unknown
	// this time (a fetch failed), so its stored collections are kept.
	Discover(ctx context.Context, d *SiteDiscovery) error
	// Harvest reads one collection: its changes go to r.Record, and what
	// is to be stored with them is the Result. An error is the run's,
	// said to people; what the Result holds is stored all the same, so an
	// adapter that wants nothing stored returns none and calls r.Discard.
	Harvest(ctx context.Context, r *CollectionRun) (Result, error)
}

// Rechecker is a Source that, between two full discoveries of a site,
// re-reads what the site pointed to before, conditionally (ResourceSync:
// the Source Description, which IFCC-0001 reads at every check, so new
// capability lists become collections at the next harvest). The
// collections of a source that is no Rechecker are kept as they are
// until the next full discovery; their harvests re-read their own
// documents anyway.
type Rechecker interface {
	// Recheck adds the source's collections to d from what d.Site
	// records. ErrRediscover asks for a full discovery now: what was
	// known is gone.
	Recheck(ctx context.Context, d *SiteDiscovery) error
}

// PageWatcher is a Source whose collections are pages it watches, where
// following an address inside a collection's scope adds that page to it
// (a page a link crawl may never reach).
type PageWatcher interface {
	// PageToWatch tells what following rawURL does to col, one of the
	// source's collections, whose pages watched are those listed:
	// inScope, the address is inside its scope; adds, none of them is
	// it, so the harvest that follows adds it.
	PageToWatch(col db.Collection, watched []db.WatchedPage, rawURL string) (inScope, adds bool)
}

// PageWatcherOf returns the source registered under name when it watches
// pages.
func PageWatcherOf(name string) (PageWatcher, bool) {
	w, ok := protocols[name].(PageWatcher)
	return w, ok
}

// ErrRediscover: a recheck found the site changed beyond what it can
// follow, so the harvest runs a full discovery instead.
var ErrRediscover = errors.New("harvest: what was known of the site is gone; discover it again")

// Register adds a source's adapter, and its description to the registry
// every package that names sources to people asks. Adapters call it from
// an init func; harvest/sources links them all.
func Register(s Source, info source.Info) {
	info.Name = s.Name()
	source.Register(info)
	protocols[s.Name()] = s
}

// Result is what a collection's harvest hands back to be stored with its
// changes, in one transaction.
type Result struct {
	// Pages are the collection's pages to write as now known, Gone the
	// URLs of those to forget (sources that list pages; see pageset).
	Pages []db.Page
	Gone  []string
	// Processed are documents read whole that need never be read again
	// (a delta over, a day's delta feed).
	Processed []string
	// State is the source's own state of the collection, opaque to the
	// core; nil leaves the stored one.
	State *string
	// OwnWatermark: the changes come from comparing pages, not from a
	// watermark, which the core then leaves alone.
	OwnWatermark bool
	// Snapshots are page texts the adapter read itself (to confirm a
	// change, or the pages it watches); Checked, when pages were read to
	// check them; Watched, the pages a watched set read.
	Snapshots []db.Snapshot
	Checked   map[string]time.Time
	Watched   []db.WatchedPage
	// Withdraw are pages whose stored changes are to leave every feed
	// (a page the site now asks to keep out of indexes), withdrawn in the
	// transaction that stores the rest.
	Withdraw []string
}

// Collection is the collection being harvested.
func (j *CollectionRun) Collection() db.Collection { return j.col }

// Site is the collection's site.
func (j *CollectionRun) Site() db.Site { return j.site }

// Now is when the harvest began.
func (j *CollectionRun) Now() time.Time { return j.now }

// First reports whether no harvest of the collection has succeeded yet.
func (j *CollectionRun) First() bool { return j.first }

// Settings are the collection's source's own settings.
func (j *CollectionRun) Settings() source.Settings { return j.h.opts.Sources.Of(j.col.Protocol) }

// Fetch gets url, conditionally when an earlier fetch left validators, on
// the site harvest's budget of documents. On a 304 it returns a
// NotModified response and the memo kept with the earlier fetch. Errors
// are phrased for people, naming the document's role.
func (j *CollectionRun) Fetch(ctx context.Context, role, url string) (*fetch.Response, string, error) {
	return j.s.fetch(ctx, role, url)
}

// Keep records a response's validators, with a memo of what it said, to
// be stored with the run; the next fetch of url is then conditional.
func (j *CollectionRun) Keep(url string, resp *fetch.Response, memo string) {
	j.s.keep(url, resp, memo)
}

// Forget drops what is known of url, so that its next fetch is
// unconditional.
func (j *CollectionRun) Forget(url string) { j.s.forget(url) }

// Discard drops the changes recorded and the validators kept: the run
// stores nothing but its error, and its documents are read again next
// time.
func (j *CollectionRun) Discard() {
	j.changes = nil
	j.s.states = nil
}

// Warn adds a warning to the run's record; past a few, they are counted.
func (j *CollectionRun) Warn(format string, args ...any) { j.warn.add(format, args...) }

// Record adds a change; see record.
func (j *CollectionRun) Record(c db.Change) { j.record(c) }

// LimitChanges makes the run keep at most Options.MaxChanges changes; see
// limitChanges.
func (j *CollectionRun) LimitChanges() { j.limitChanges() }

// KnownPages loads the collection's pages as stored.
func (j *CollectionRun) KnownPages(ctx context.Context) (map[string]db.Page, error) {
	return j.pagesKnown(ctx)
}

// ProcessedDocs loads the documents already processed whole.
func (j *CollectionRun) ProcessedDocs(ctx context.Context) (map[string]bool, error) {
	return j.processedDocs(ctx)
}

// SetHostDelay slows (or, with 0, stops slowing) the requests to a host,
// as a source asks (an ARC sitemap's crawl_rate).
func (j *CollectionRun) SetHostDelay(host string, d time.Duration) { j.h.client.SetHostDelay(host, d) }

// Passed returns what discovery passed on under key (see
// SiteDiscovery.Pass): a document it read whole, which the harvest then
// need not fetch again.
func (j *CollectionRun) Passed(key string) (any, bool) {
	v, ok := j.s.passed[key]
	return v, ok
}

// Root is the site's root: https://example.org/.
func (d *SiteDiscovery) Root() string { return d.root }

// Input is the address given, or the site's root.
func (d *SiteDiscovery) Input() string { return d.input }

// Site is the site as stored; zero on a first follow.
func (d *SiteDiscovery) Site() db.Site { return d.site }

// Stored are the site's active collections; none on a first follow.
func (d *SiteDiscovery) Stored() []db.Collection { return d.stored }

// WantTitle reports whether discovery is to name the site.
func (d *SiteDiscovery) WantTitle() bool { return d.wantTitle }

// Known reports whether a collection of that key is already stored, so
// its title is not fetched again.
func (d *SiteDiscovery) Known(key string) bool { return d.isKnown(key) }

// Get fetches a URL once per discovery, unconditionally.
func (d *SiteDiscovery) Get(ctx context.Context, u string) (*fetch.Response, error) {
	return d.get(ctx, u)
}

// Page returns the page that was given (the site's root when none was).
func (d *SiteDiscovery) Page(ctx context.Context) (*fetch.Response, error) { return d.page(ctx) }

// RobotsSitemaps returns the Sitemap lines of the site's robots.txt.
func (d *SiteDiscovery) RobotsSitemaps(ctx context.Context) []string { return d.robotsSitemaps(ctx) }

// HTMLTitle returns the <title> of the HTML page at u, or "".
func (d *SiteDiscovery) HTMLTitle(ctx context.Context, u string) string { return d.htmlTitle(ctx, u) }

// Tried says where the discovery looked and what it found there, as a
// sentence.
func (d *SiteDiscovery) Tried(format string, args ...any) { d.triedf(format, args...) }

// Warn adds a warning to the site's run.
func (d *SiteDiscovery) Warn(format string, args ...any) { d.warnf(format, args...) }

// Failed records a fetch that went wrong.
func (d *SiteDiscovery) Failed(err error) { d.failed(err) }

// Halted reports whether discovery is to stop looking: the address
// policy refused a fetch, or the site's name does not exist.
func (d *SiteDiscovery) Halted() bool { return d.refused != nil || d.stop != nil }

// Add records a collection, once per source and key.
func (d *SiteDiscovery) Add(spec db.CollectionSpec) { d.add(spec) }

// Pass hands the harvests of this site harvest what discovery read whole
// (a document they would fetch again), under a key of the source's own.
func (d *SiteDiscovery) Pass(key string, v any) {
	if d.s.passed == nil {
		d.s.passed = map[string]any{}
	}
	d.s.passed[key] = v
}

// Refused reports whether the address policy refused a fetch: every other
// fetch would be refused the same way.
func (d *SiteDiscovery) Refused() bool { return d.refused != nil }

// OnSite reports whether a document speaks for a page: only for pages on
// its own host or the site's (www. or not), so that no site can put
// entries about someone else's pages into its feed (urls.OnSite).
func (j *CollectionRun) OnSite(page, doc string) bool { return urls.OnSite(page, doc, j.site.URL) }

// NewCollectionRun starts a run of col outside any site harvest, at now:
// for an adapter's benchmarks, which drive its comparison without a site
// to fetch from.
func (h *Harvester) NewCollectionRun(col db.Collection, now time.Time) *CollectionRun {
	return &CollectionRun{h: h, s: newSession(h.client, nil), col: col, now: now, first: col.LastSuccessAt == nil,
		cutoff: now.Add(-h.opts.InitialWindow), seen: map[changeKey]bool{}, reading: h.newPageReading()}
}

// Broken records a document the site publishes as change information
// that could not be read, as a sentence naming it and the error ("the ARC
// sitemap https://… is not valid: line 4: invalid JSON"): the site's run
// then says so beside the less precise source it is followed by, rather
// than that it publishes nothing.
func (d *SiteDiscovery) Broken(format string, args ...any) {
	d.BrokenFinding(Finding{}, format, args...)
}
