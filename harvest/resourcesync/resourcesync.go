// Package resourcesync is the ResourceSync source (ANSI/NISO Z39.99,
// read as IFCC-0001 says): discovery of the Source Description and its
// capability lists, the harvest of change lists from the last processing
// time on, and, where a capability list offers no change list, the
// comparison of successive resource lists through the page-set differ.
package resourcesync

import (
	"bytes"
	"context"
	"strings"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/hints"
	"tidings/rsync"
	"tidings/source"
)

// wellKnownPath is where IFCC-0001 puts a site's Source Description.
const wellKnownPath = "/.well-known/resourcesync"

// Name names ResourceSync collections in the store: one capability list
// is one collection, keyed by the page it describes.
const Name = "resourcesync"

// maxUpHops bounds how far rel="up" links are followed from a capability
// list, change list or resource list towards the Source Description.
const maxUpHops = 3

func init() {
	harvest.Register(Source{}, source.Info{Tier: 0, Rank: 0, Help: "ResourceSync change lists", Published: true, KeyIsHome: true,
		NewSettings: func() source.Settings { return &Settings{} },
		Follows: func(int) string {
			return "follows the site's ResourceSync change list, or compares its resource lists"
		}})
}

// Source follows IFCC-0001: Source Description → capability lists →
// change lists.
type Source struct{}

// Name is the name ResourceSync collections are stored under.
func (Source) Name() string { return Name }

// rsDiscovery is one ResourceSync discovery.
type rsDiscovery struct {
	*harvest.SiteDiscovery
	docs      docs
	seen      map[string]bool
	descs     []*rsync.Document
	fallbacks []*rsync.Document // capability lists with no reachable Source Description
	knownErr  error             // the Source Description found last time could not be read
}

// newDiscovery starts a ResourceSync discovery over sd.
func newDiscovery(sd *harvest.SiteDiscovery) *rsDiscovery {
	return &rsDiscovery{SiteDiscovery: sd, docs: docs{host: sd, now: sd.Now(), strict: strictIn(sd.Settings(Name))}, seen: map[string]bool{}}
}

// Discover finds the Source Description(s): first where it was found last
// time, then /.well-known/resourcesync, then robots.txt Sitemap lines, then
// the page's Link header and <link rel="resourcesync">.
func (Source) Discover(ctx context.Context, sd *harvest.SiteDiscovery) error {
	d := newDiscovery(sd)
	if last := sd.Site().SourceURL; last != "" {
		d.tryKnown(ctx, last)
	}
	steps := []func(){
		func() { d.try(ctx, sd.Root()+wellKnownPath[1:], 0) },
		func() { d.fromRobots(ctx) },
		func() { d.fromPage(ctx) },
	}
	for _, step := range steps {
		if len(d.descs) > 0 || len(d.fallbacks) > 0 || sd.Refused() {
			break
		}
		step()
	}
	d.collections(ctx)
	if d.knownErr != nil && len(d.descs) == 0 && len(d.fallbacks) == 0 && !fetch.Gone(d.knownErr) {
		// Likely passing (a 500, a timeout): keep the collections.
		return d.unsure(d.knownErr)
	}
	if sd.WantTitle() && len(d.descs) > 0 {
		if about := d.descs[0].Link("describedby"); about != "" {
			sd.SetSiteTitle(sd.HTMLTitle(ctx, about))
		}
	}
	return nil
}

// unsure returns err, the Source Description found last time staying
// where it was: it could not be read this time.
func (d *rsDiscovery) unsure(err error) error {
	if d.SourceURL() == "" {
		d.SetSourceURL(d.Site().SourceURL)
	}
	return err
}

// Recheck re-reads the Source Description found last time, conditionally
// (IFCC-0001's step 1 of every check). When it no longer leads to a
// Source Description, or none was ever found, the places to look for one
// are searched again now.
func (Source) Recheck(ctx context.Context, sd *harvest.SiteDiscovery) error {
	last := sd.Site().SourceURL
	if last == "" {
		sd.KeepStored(Name)
		return nil
	}
	d := newDiscovery(sd)
	d.tryKnown(ctx, last)
	if len(d.descs) == 0 && len(d.fallbacks) == 0 {
		if d.knownErr != nil && !fetch.Gone(d.knownErr) {
			// Likely passing (a 500, a timeout): keep the collections.
			return d.unsure(d.knownErr)
		}
		return harvest.ErrRediscover
	}
	d.collections(ctx)
	return nil
}

// tryKnown fetches the Source Description found last time, conditionally.
func (d *rsDiscovery) tryKnown(ctx context.Context, u string) {
	d.seen[u] = true
	doc, err := d.docs.doc(ctx, "", u)
	switch {
	case err != nil:
		if u == d.Site().SourceURL {
			d.knownErr = err
		}
		d.Failed(err)
	case doc == nil:
		d.Tried("%s was not modified but nothing was remembered of it", u)
	default:
		d.classify(ctx, doc, u, 0)
	}
}

// try fetches a candidate document and follows it to a Source Description.
func (d *rsDiscovery) try(ctx context.Context, u string, hops int) {
	if d.seen[u] {
		return
	}
	d.seen[u] = true
	if u == d.Site().SourceURL || hops > 0 {
		d.tryKnown(ctx, u)
		return
	}
	resp, err := d.Get(ctx, u)
	if err != nil {
		d.Failed(err)
		return
	}
	doc, err := rsync.Parse(bytes.NewReader(resp.Body), u)
	if err != nil {
		if strings.HasSuffix(u, wellKnownPath) && !strings.Contains(strings.ToLower(resp.ContentType), "html") {
			// Where IFCC-0001 puts it, and not a page answering for a
			// missing one: the site meant it.
			d.Broken("the ResourceSync Source Description %s is not valid: %s", u, trimRsync(err))
		}
		d.Tried("%s is not a ResourceSync document: %s", u, trimRsync(err))
		return
	}
	d.docs.note(ctx, doc, 0)
	d.keepDescription(resp, doc)
	d.classify(ctx, doc, u, hops)
}

// keepDescription keeps the validators of a Source Description (or its
// index) found by looking for one, so that the next harvest, which reads
// it again, asks conditionally.
func (d *rsDiscovery) keepDescription(resp *fetch.Response, doc *rsync.Document) {
	if doc.Capability == rsync.CapDescription || d.isDescriptionIndex(doc) {
		d.docs.keep(doc.URL, resp, doc, digest(resp.Body))
	}
}

// isDescriptionIndex tells a Source Description Index: a <sitemapindex>
// that says so, or, as IFCC-0001 has it ("recognizable in that their root
// element will be a Sitemap <sitemapindex>"), any <sitemapindex> at
// /.well-known/resourcesync.
func (d *rsDiscovery) isDescriptionIndex(doc *rsync.Document) bool {
	return doc.IsIndex() && (doc.Capability == rsync.CapDescription ||
		doc.Capability == "" && doc.URL == d.Root()+".well-known/resourcesync")
}

func (d *rsDiscovery) classify(ctx context.Context, doc *rsync.Document, label string, hops int) {
	switch {
	case d.isDescriptionIndex(doc):
		d.SetSourceURL(doc.URL)
		d.Tried("%s is a Source Description Index of %d Source Descriptions", label, len(doc.Entries))
		for _, e := range doc.Entries {
			d.tryDescription(ctx, e.Loc)
		}
	case doc.Capability == rsync.CapDescription:
		if d.SourceURL() == "" {
			d.SetSourceURL(doc.URL)
		}
		d.descs = append(d.descs, doc)
	case doc.Capability == "":
		d.Tried("%s is a plain sitemap, not a ResourceSync document", label)
	default:
		d.up(ctx, doc, label, hops)
	}
}

func (d *rsDiscovery) tryDescription(ctx context.Context, u string) {
	if d.seen[u] {
		return
	}
	d.seen[u] = true
	doc, err := d.docs.doc(ctx, "Source Description", u)
	switch {
	case err != nil:
		d.Failed(err)
	case doc == nil:
		d.Tried("Source Description %s was not modified but nothing was remembered of it", u)
	case doc.Capability != rsync.CapDescription || doc.IsIndex():
		d.Tried("%s, listed in the Source Description Index, is not a Source Description", u)
	default:
		d.descs = append(d.descs, doc)
	}
}

// up follows rel="up" from a lower-level document towards the Source
// Description. A capability list whose Source Description cannot be reached
// is still a collection of its own.
func (d *rsDiscovery) up(ctx context.Context, doc *rsync.Document, label string, hops int) {
	parent := doc.Link("up")
	if doc.Capability == rsync.CapCapabilityList {
		d.fallbacks = append(d.fallbacks, doc)
	}
	if parent == "" || hops >= maxUpHops {
		d.Tried("%s is a ResourceSync %s with no rs:ln rel=\"up\" to follow", label, doc.Capability)
		return
	}
	d.Tried("%s is a ResourceSync %s; following rel=\"up\" to %s", label, doc.Capability, parent)
	d.try(ctx, parent, hops+1)
}

func (d *rsDiscovery) fromRobots(ctx context.Context) {
	sitemaps := d.RobotsSitemaps(ctx)
	for i, m := range sitemaps {
		if i >= 10 {
			d.Tried("robots.txt lists %d sitemaps; only the first 10 were looked at", len(sitemaps))
			break
		}
		d.try(ctx, m, 0)
	}
}

// fromPage looks for the page's Link: <…>; rel="resourcesync" header and
// <link rel="resourcesync"> elements; a pasted ResourceSync document URL is
// taken as it is.
func (d *rsDiscovery) fromPage(ctx context.Context) {
	resp, err := d.Page(ctx)
	if err != nil {
		d.Failed(err)
		return
	}
	if doc, err := rsync.Parse(bytes.NewReader(resp.Body), resp.URL); err == nil {
		d.seen[d.Input()] = true
		d.docs.note(ctx, doc, 0)
		d.keepDescription(resp, doc)
		d.classify(ctx, doc, d.Input(), 0)
		return
	}
	links := hints.LinkHeader(resp.Header.Values("Link"), resp.URL, "resourcesync")
	html, _ := hints.HTMLHints(bytes.NewReader(resp.Body), resp.URL)
	links = append(links, html...)
	if len(links) == 0 {
		d.Tried("%s has no Link header or <link rel=\"resourcesync\"> naming a ResourceSync document", d.Input())
		return
	}
	for _, l := range links {
		d.try(ctx, l, 0)
	}
}

// collections turns the Source Descriptions found into collections.
func (d *rsDiscovery) collections(ctx context.Context) {
	add := func(key, source, describedBy string) {
		spec := db.CollectionSpec{Protocol: Name, Key: key, SourceURL: source}
		// Named when first found; an empty title keeps that name.
		if !d.Known(key) {
			spec.Title = key
			if describedBy != "" {
				if t := d.HTMLTitle(ctx, describedBy); t != "" {
					spec.Title = t
				}
			} else if strings.HasPrefix(key, d.Root()) {
				// Nothing names the collection: the page it stands for
				// does (for a collection of the whole site, the home
				// page), when it is one of the site's.
				if t := d.PageTitle(ctx, key); t != "" {
					spec.Title = t
				}
			}
		}
		d.Add(spec)
	}
	for _, desc := range d.descs {
		n := 0
		for _, e := range desc.Entries {
			if e.Capability != rsync.CapCapabilityList {
				continue
			}
			n++
			key, about := e.Link("describes"), e.Link("describedby")
			if key == "" || about == "" && !d.Known(key) {
				key, about = d.fromCapabilityList(ctx, e.Loc, key, about)
			}
			if key == "" {
				key = e.Loc
				d.Find(harvest.Finding{Code: CodeNoDescribes, Document: desc.URL},
					"neither the Source Description %s nor the capability list %s has rs:ln rel=\"describes\"; it is identified by its own URL", desc.URL, e.Loc)
			}
			add(key, e.Loc, about)
		}
		if n == 0 {
			d.Tried("the Source Description %s lists no capability lists", desc.URL)
		}
	}
	if len(d.descs) > 0 {
		return
	}
	for _, cl := range d.fallbacks {
		key := cl.Link("describes")
		if key == "" {
			key = cl.URL
			d.Find(harvest.Finding{Code: CodeNoDescribes, Document: cl.URL},
				"the capability list %s has no rs:ln rel=\"describes\"; it is identified by its own URL", cl.URL)
		}
		if d.SourceURL() == "" {
			d.SetSourceURL(cl.URL)
		}
		add(key, cl.URL, cl.Link("describedby"))
	}
}

// fromCapabilityList fills the identity (describes) and title page
// (describedby) of a collection the Source Description left out from the
// capability list's own links, which IFCC-0001 requires of it.
func (d *rsDiscovery) fromCapabilityList(ctx context.Context, u, key, about string) (string, string) {
	cl, err := d.docs.doc(ctx, "capability list", u)
	if err != nil {
		d.Failed(err)
		return key, about
	}
	if cl == nil || cl.Capability != rsync.CapCapabilityList {
		return key, about
	}
	// Its collection's harvest, which reads it next, need not fetch it
	// again.
	d.Pass(passKey(u), cl)
	if key == "" {
		key = cl.Link("describes")
	}
	if about == "" {
		about = cl.Link("describedby")
	}
	return key, about
}
