package harvest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/hints"
	"tidings/source"
)

// protocols are the registered sources, by name.
var protocols = map[string]Source{}

// tierOf is how precise a source is (source.Info.Tier): a
// less precise one is asked only when every one of a lower tier found
// nothing, so a site that offers a more precise source is always followed
// by it.
func tierOf(name string) int {
	i, _ := source.Lookup(name)
	return i.Tier
}

// protocolNames lists the registered protocols by tier and rank, so
// discovery and reports keep a stable order.
func protocolNames() []string {
	var names []string
	for _, n := range source.Names() {
		if protocols[n] != nil {
			names = append(names, n)
		}
	}
	return names
}

// SiteDiscovery is one discovery of a site's collections, shared by every
// protocol: robots.txt, the page that was given and any document fetched
// are fetched once and reused.
type SiteDiscovery struct {
	h         *Harvester
	s         *session
	root      string  // https://example.org/
	input     string  // the address given, or the site's root
	site      db.Site // zero on a first follow
	known     map[string]bool
	wantTitle bool
	// stored are the site's active collections (none on a first follow).
	stored []db.Collection

	// quick: between full discoveries, only rechecker protocols look,
	// and only at what is known; the others' collections are kept.
	quick bool

	d          *Discovery
	broken     []Finding // what each of d.Broken means to the site's owner
	byKey      map[string]bool
	keep       map[string]bool // protocols whose stored collections stay: not looked for, or the look failed
	rediscover bool            // a recheck asked for a full discovery
	refused    error           // the address policy refused a fetch
	stop       error           // the site's name does not exist: nothing more is tried
	errs       []error         // the fetches that went wrong, to say why nothing was found
	cache      map[string]cached
	robots     []string
	robotsDone bool
}

type cached struct {
	resp *fetch.Response
	err  error
}

func newSiteDiscovery(h *Harvester, s *session, root, input string, site db.Site, known map[string]bool, wantTitle bool) *SiteDiscovery {
	return &SiteDiscovery{
		h: h, s: s, root: root, input: input, site: site, known: known, wantTitle: wantTitle,
		d: &Discovery{}, byKey: map[string]bool{}, keep: map[string]bool{}, cache: map[string]cached{},
	}
}

// run asks every protocol, then says what was found.
func (d *SiteDiscovery) run(ctx context.Context) (*Discovery, error) {
	var recheckErr error
	tier, found, unread := 0, false, false
	for _, n := range protocolNames() {
		if t := tierOf(n); t != tier && !d.quick && !found && !unread {
			found, unread = d.settled(tier)
			tier = t
		}
		if found {
			// A more precise source replaces this one.
			continue
		}
		if unread {
			// Not asked: what it found before stays until the more
			// precise source can be read again.
			d.keep[n] = true
			continue
		}
		var err error
		if r, ok := protocols[n].(Rechecker); ok && d.quick {
			err = r.Recheck(ctx, d)
			if err != nil && recheckErr == nil {
				recheckErr = err
			}
		} else if d.quick {
			d.keep[n] = true
			continue
		} else {
			err = protocols[n].Discover(ctx, d)
		}
		if errors.Is(err, ErrRediscover) {
			d.rediscover = true
			return d.d, err
		}
		if err != nil {
			// Already among what was tried; remembered so that this
			// protocol's stored collections are kept.
			d.keep[n] = true
		}
		if d.refused != nil {
			// Every other fetch would be refused the same way.
			return d.d, d.refused
		}
		if d.stop != nil {
			return d.d, d.stop
		}
	}
	if d.quick {
		// What was known could not be read: the site's page says so,
		// and its stored collections are harvested as they are.
		return d.d, recheckErr
	}
	if len(d.d.Collections) == 0 {
		return d.d, problemf("%s; tried: %s", d.whyNothing(), strings.Join(once(d.d.Tried), "; "))
	}
	for i, b := range d.d.Broken {
		d.d.warn(Warning{Text: b + "; until it can be read, tidings follows the site by what else it offers", Finding: d.broken[i]})
	}
	if d.wantTitle && d.d.SiteTitle == "" {
		// Nothing published names the site: its home page does.
		d.d.SiteTitle = d.pageTitle(ctx, d.root)
	}
	d.handOver()
	return d.d, nil
}

// handOver leaves what discovery read whole of the address given to the
// collection harvests: the change list a person gave as the address to
// follow is then read once, not once by discovery (its sources look at
// the page given) and again by its collection's harvest.
func (d *SiteDiscovery) handOver() {
	c, ok := d.cache[d.input]
	if !ok || c.err != nil || c.resp == nil || c.resp.NotModified {
		return
	}
	if d.s.bodies == nil {
		d.s.bodies = map[string]*fetch.Response{}
	}
	d.s.bodies[d.input] = c.resp
}

// given is what discovery read whole of url when url is the address
// given, or nil: a source reading it again through Fetch takes this copy.
func (d *SiteDiscovery) given(url string) *fetch.Response {
	if url != d.input {
		return nil
	}
	if c, ok := d.cache[url]; ok && c.err == nil && c.resp != nil && !c.resp.NotModified {
		return c.resp
	}
	return nil
}

// pageTitle is the <title> of the HTML page at u, or "", for naming what
// nothing else names. The home page is most often read already; a page
// that cannot be read leaves the name the address, which is no problem
// to report.
func (d *SiteDiscovery) pageTitle(ctx context.Context, u string) string {
	resp, err := d.get(ctx, u)
	if err != nil || !strings.Contains(strings.ToLower(resp.ContentType), "html") {
		return ""
	}
	_, t := hints.HTMLHints(bytes.NewReader(resp.Body), resp.URL)
	return t
}

// settled reports whether discovery stops after the protocols of tier t:
// found, one of them found a collection; unread, one could not be read
// on a site already followed, whose stored collections then stay as they
// are rather than being replaced by a less precise source.
func (d *SiteDiscovery) settled(t int) (found, unread bool) {
	if len(d.d.Collections) > 0 {
		return true, false
	}
	if d.site.ID == 0 {
		return false, false
	}
	for n := range d.keep {
		if tierOf(n) == t {
			return false, true
		}
	}
	return false, false
}

func (d *SiteDiscovery) triedf(format string, args ...any) {
	d.d.Tried = append(d.d.Tried, fmt.Sprintf(format, args...))
}

func (d *SiteDiscovery) warnf(format string, args ...any) {
	d.d.warn(Warning{Text: fmt.Sprintf(format, args...)})
}

// failed records a fetch that went wrong.
func (d *SiteDiscovery) failed(err error) {
	var ae *fetch.AddressError
	if errors.As(err, &ae) && d.refused == nil {
		d.refused = err
	}
	if host, ok := noSuchHost(err); ok && d.stop == nil && sameHost(host, d.root) {
		// Every other address on the host would fail the same way.
		d.stop = problemf("the name %s does not exist (the DNS knows no such host); check the address", host)
	}
	d.errs = append(d.errs, err)
	d.triedf("%s", err.Error())
}

// add records a collection, once per protocol and key.
func (d *SiteDiscovery) add(spec db.CollectionSpec) {
	k := spec.Protocol + " " + spec.Key
	if d.byKey[k] {
		return
	}
	if len(d.d.Collections) >= maxCollections {
		d.warnf("the site declares more than %d collections; the rest are ignored", maxCollections)
		return
	}
	d.byKey[k] = true
	d.d.Collections = append(d.d.Collections, spec)
}

// isKnown reports whether a collection is already stored, so its title is
// not fetched again.
func (d *SiteDiscovery) isKnown(key string) bool { return d.known[key] }

// get fetches a URL once per discovery, unconditionally.
func (d *SiteDiscovery) get(ctx context.Context, u string) (*fetch.Response, error) {
	if c, ok := d.cache[u]; ok {
		return c.resp, c.err
	}
	if err := d.s.spend(); err != nil {
		d.cache[u] = cached{nil, err}
		return nil, err
	}
	if d.stop != nil {
		return nil, d.stop
	}
	d.s.documents++
	var resp *fetch.Response
	err := d.timed(ctx, u, func(ctx context.Context) (err error) {
		resp, err = d.s.c.Get(ctx, u, fetch.Conditional{})
		return err
	})
	d.s.noteRetryAfter(err)
	d.cache[u] = cached{resp, err}
	return resp, err
}

// timed bounds one document of the discovery, robots.txt included, by
// the session's docTimeout: a site that sends a byte now and then would
// otherwise hold a discovery worker for the client's whole timeout per
// document, several minutes a site. One document too slow stops the
// discovery (d.stop): the site's others would be as slow.
func (d *SiteDiscovery) timed(ctx context.Context, u string, get func(context.Context) error) error {
	if d.s.docTimeout <= 0 {
		return get(ctx)
	}
	dctx, cancel := context.WithTimeout(ctx, d.s.docTimeout)
	defer cancel()
	err := get(dctx)
	if err != nil && dctx.Err() != nil && ctx.Err() == nil {
		err = &Problem{Msg: fmt.Sprintf("%s took longer than %s to send (--discovery-document-timeout), so tidings asked this site for nothing more; it tries again at the next harvest",
			u, d.s.docTimeout), Err: err}
		if d.stop == nil {
			d.stop = err
		}
	}
	return err
}

// robotsSitemaps returns the Sitemap lines of robots.txt, read from the
// client's copy, which also judges every fetch: one robots.txt request
// serves both. A missing robots.txt is noted among what was tried.
func (d *SiteDiscovery) robotsSitemaps(ctx context.Context) []string {
	if d.robotsDone {
		return d.robots
	}
	d.robotsDone = true
	u, ok := fetch.RobotsURL(d.root)
	if !ok || d.stop != nil {
		return nil
	}
	var r fetch.RobotsCopy
	err := d.timed(ctx, u, func(ctx context.Context) (err error) {
		r, err = d.s.c.Robots(ctx, d.root)
		return err
	})
	if err == nil && r.Status/100 != 2 {
		err = &fetch.FetchError{URL: u, Status: r.Status, Reason: r.Reason}
	}
	if err != nil {
		d.failed(err)
		return nil
	}
	d.robots = hints.RobotsSitemaps(bytes.NewReader(r.Body), r.URL)
	if len(d.robots) == 0 {
		d.triedf("robots.txt lists no sitemaps")
	}
	return d.robots
}

// page returns the page that was given (the site's root when none was).
func (d *SiteDiscovery) page(ctx context.Context) (*fetch.Response, error) {
	return d.get(ctx, d.input)
}

// htmlTitle returns the <title> of the HTML page at u, or "".
func (d *SiteDiscovery) htmlTitle(ctx context.Context, u string) string {
	resp, err := d.get(ctx, u)
	if err != nil {
		d.warnf("%s", err.Error())
		return ""
	}
	if !strings.Contains(strings.ToLower(resp.ContentType), "html") {
		return ""
	}
	_, t := hints.HTMLHints(bytes.NewReader(resp.Body), resp.URL)
	return t
}

// CollectionRun is one collection's harvest run: what a source's adapter
// may ask of the core while it reads the collection (its exported
// methods), and the changes it records, stored in one transaction with
// the Result it hands back.
type CollectionRun struct {
	h      *Harvester
	s      *session
	site   db.Site
	col    db.Collection
	first  bool      // no harvest of this collection has succeeded yet
	cutoff time.Time // on a first harvest, older changes are history
	now    time.Time
	warn   warnings

	changes []db.Change
	limit   changeCap
	dates   refusedDates
	seen    map[changeKey]bool
	// seenMs are stored changes whose time has no finer part than a
	// millisecond (MarkStored).
	seenMs  map[changeKey]bool
	lastmod int
	newest  time.Time
	// res is what the adapter handed back.
	res Result
	// given holds page texts the change information carried (SCP content
	// blocks), by URL, which spare their pages a fetch; givenBytes counts
	// their length.
	given      map[string]givenPage
	givenBytes int
	// reading is the site harvest's page reading, shared by its collections.
	reading *pageReading
	// learned are the shapes of noise lines this run learned, to keep.
	learned []string
}

type changeKey struct {
	url, kind string
	at        time.Time
}

// record adds a change once per (URL, kind, time) within the run; the
// store's uniqueness key catches repeats across runs. A change dated before
// the web or too far ahead is refused (see minChangeTime), and one past the
// limit of the run waits for the next (see changeCap).
func (j *CollectionRun) record(c db.Change) {
	c.CollectionID = j.col.ID
	// Microseconds, as a source writes them at most (a change list's
	// 2013-01-02T13:00:02.123456Z) and Atom and both engines keep them;
	// the nanoseconds of a harvest's own clock nobody reads.
	c.Datetime = c.Datetime.UTC().Truncate(time.Microsecond)
	if !j.believable(c.Datetime) {
		return
	}
	k := changeKey{c.URL, c.Kind, c.Datetime}
	if j.seen[k] || j.seenMs[changeKey{c.URL, c.Kind, c.Datetime.Truncate(time.Millisecond)}] || j.waits(&c) {
		return
	}
	j.seen[k] = true
	if c.FromLastmod {
		j.lastmod++
	}
	if c.Datetime.After(j.newest) {
		j.newest = c.Datetime
	}
	// An adapter may know a change is history (a watched page found on
	// the first crawl); otherwise its date says.
	c.History = c.History || j.isHistory(c.Datetime)
	j.hold(c)
}

// pagesKnown loads the collection's known pages (for page-list protocols).
func (j *CollectionRun) pagesKnown(ctx context.Context) (map[string]db.Page, error) {
	return j.h.store.Pages(ctx, j.col.ID)
}

// processedDocs loads the documents (deltas) already processed.
func (j *CollectionRun) processedDocs(ctx context.Context) (map[string]bool, error) {
	return j.h.store.Processed(ctx, j.col.ID)
}
