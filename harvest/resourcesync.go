package harvest

import (
	"bytes"
	"context"
	"strings"

	"tidings/db"
	"tidings/fetch"
	"tidings/hints"
	"tidings/rsync"
	"tidings/source"
)

// ProtocolResourceSync names ResourceSync collections in the store.
const ProtocolResourceSync = "resourcesync"

// maxUpHops bounds how far rel="up" links are followed from a capability
// list, change list or resource list towards the Source Description.
const maxUpHops = 3

func init() {
	register(resourceSync{}, source.Info{Tier: 0, Rank: 0, Help: "ResourceSync change lists", Published: true, KeyIsHome: true,
		NewSettings: func() source.Settings { return &ResourceSyncSettings{} },
		Follows: func(int) string {
			return "follows the site's ResourceSync change list, or compares its resource lists"
		}})
}

// resourceSync follows IFCC-0001: Source Description → capability lists →
// change lists.
type resourceSync struct{}

func (resourceSync) name() string { return ProtocolResourceSync }

// rsDiscovery is one ResourceSync discovery.
type rsDiscovery struct {
	*SiteDiscovery
	seen      map[string]bool
	descs     []*rsync.Document
	fallbacks []*rsync.Document // capability lists with no reachable Source Description
	knownErr  error             // the Source Description found last time could not be read
}

// discover finds the Source Description(s): first where it was found last
// time, then /.well-known/resourcesync, then robots.txt Sitemap lines, then
// the page's Link header and <link rel="resourcesync">.
func (resourceSync) discover(ctx context.Context, sd *SiteDiscovery) error {
	d := &rsDiscovery{SiteDiscovery: sd, seen: map[string]bool{}}
	if last := sd.site.SourceURL; last != "" {
		d.tryKnown(ctx, last)
	}
	steps := []func(){
		func() { d.try(ctx, sd.root+".well-known/resourcesync", 0) },
		func() { d.fromRobots(ctx) },
		func() { d.fromPage(ctx) },
	}
	for _, step := range steps {
		if len(d.descs) > 0 || len(d.fallbacks) > 0 || sd.refused != nil {
			break
		}
		step()
	}
	d.collections(ctx)
	if d.knownErr != nil && len(d.descs) == 0 && len(d.fallbacks) == 0 && !fetch.Gone(d.knownErr) {
		// Likely passing (a 500, a timeout): keep the collections.
		return d.knownErr
	}
	if sd.wantTitle && len(d.descs) > 0 {
		if about := d.descs[0].Link("describedby"); about != "" {
			sd.d.SiteTitle = sd.htmlTitle(ctx, about)
		}
	}
	return nil
}

// recheck re-reads the Source Description found last time, conditionally
// (IFCC-0001's step 1 of every check). When it no longer leads to a
// Source Description, or none was ever found, the places to look for one
// are searched again now.
func (resourceSync) recheck(ctx context.Context, sd *SiteDiscovery) error {
	last := sd.site.SourceURL
	if last == "" {
		sd.keep[ProtocolResourceSync] = true
		return nil
	}
	d := &rsDiscovery{SiteDiscovery: sd, seen: map[string]bool{}}
	d.tryKnown(ctx, last)
	if len(d.descs) == 0 && len(d.fallbacks) == 0 {
		if d.knownErr != nil && !fetch.Gone(d.knownErr) {
			// Likely passing (a 500, a timeout): keep the collections.
			return d.knownErr
		}
		return errRediscover
	}
	d.collections(ctx)
	return nil
}

// tryKnown fetches the Source Description found last time, conditionally.
func (d *rsDiscovery) tryKnown(ctx context.Context, u string) {
	d.seen[u] = true
	doc, err := d.s.doc(ctx, "", u)
	switch {
	case err != nil:
		if u == d.site.SourceURL {
			d.knownErr = err
		}
		d.failed(err)
	case doc == nil:
		d.triedf("%s was not modified but nothing was remembered of it", u)
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
	if u == d.site.SourceURL || hops > 0 {
		d.tryKnown(ctx, u)
		return
	}
	resp, err := d.get(ctx, u)
	if err != nil {
		d.failed(err)
		return
	}
	doc, err := rsync.Parse(bytes.NewReader(resp.Body), u)
	if err != nil {
		d.triedf("%s is not a ResourceSync document: %s", u, trimRsync(err))
		return
	}
	noteParsed(ctx, doc)
	d.keepDescription(resp, doc)
	d.classify(ctx, doc, u, hops)
}

// keepDescription keeps the validators of a Source Description (or its
// index) found by looking for one, so that the next harvest, which reads
// it again, asks conditionally.
func (d *rsDiscovery) keepDescription(resp *fetch.Response, doc *rsync.Document) {
	if doc.Capability == rsync.CapDescription || d.isDescriptionIndex(doc) {
		d.s.keepDoc(doc.URL, resp, doc, bodyDigest(resp.Body))
	}
}

// isDescriptionIndex tells a Source Description Index: a <sitemapindex>
// that says so, or, as IFCC-0001 has it ("recognizable in that their root
// element will be a Sitemap <sitemapindex>"), any <sitemapindex> at
// /.well-known/resourcesync.
func (d *rsDiscovery) isDescriptionIndex(doc *rsync.Document) bool {
	return doc.IsIndex() && (doc.Capability == rsync.CapDescription ||
		doc.Capability == "" && doc.URL == d.root+".well-known/resourcesync")
}

func (d *rsDiscovery) classify(ctx context.Context, doc *rsync.Document, label string, hops int) {
	switch {
	case d.isDescriptionIndex(doc):
		d.d.SourceURL = doc.URL
		d.triedf("%s is a Source Description Index of %d Source Descriptions", label, len(doc.Entries))
		for _, e := range doc.Entries {
			d.tryDescription(ctx, e.Loc)
		}
	case doc.Capability == rsync.CapDescription:
		if d.d.SourceURL == "" {
			d.d.SourceURL = doc.URL
		}
		d.descs = append(d.descs, doc)
	case doc.Capability == "":
		d.triedf("%s is a plain sitemap, not a ResourceSync document", label)
	default:
		d.up(ctx, doc, label, hops)
	}
}

func (d *rsDiscovery) tryDescription(ctx context.Context, u string) {
	if d.seen[u] {
		return
	}
	d.seen[u] = true
	doc, err := d.s.doc(ctx, "Source Description", u)
	switch {
	case err != nil:
		d.failed(err)
	case doc == nil:
		d.triedf("Source Description %s was not modified but nothing was remembered of it", u)
	case doc.Capability != rsync.CapDescription || doc.IsIndex():
		d.triedf("%s, listed in the Source Description Index, is not a Source Description", u)
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
		d.triedf("%s is a ResourceSync %s with no rs:ln rel=\"up\" to follow", label, doc.Capability)
		return
	}
	d.triedf("%s is a ResourceSync %s; following rel=\"up\" to %s", label, doc.Capability, parent)
	d.try(ctx, parent, hops+1)
}

func (d *rsDiscovery) fromRobots(ctx context.Context) {
	for i, m := range d.robotsSitemaps(ctx) {
		if i >= 10 {
			d.triedf("robots.txt lists %d sitemaps; only the first 10 were looked at", len(d.robots))
			break
		}
		d.try(ctx, m, 0)
	}
}

// fromPage looks for the page's Link: <…>; rel="resourcesync" header and
// <link rel="resourcesync"> elements; a pasted ResourceSync document URL is
// taken as it is.
func (d *rsDiscovery) fromPage(ctx context.Context) {
	resp, err := d.page(ctx)
	if err != nil {
		d.failed(err)
		return
	}
	if doc, err := rsync.Parse(bytes.NewReader(resp.Body), resp.URL); err == nil {
		d.seen[d.input] = true
		noteParsed(ctx, doc)
		d.keepDescription(resp, doc)
		d.classify(ctx, doc, d.input, 0)
		return
	}
	links := hints.LinkHeader(resp.Header.Values("Link"), resp.URL, "resourcesync")
	html, _ := hints.HTMLHints(bytes.NewReader(resp.Body), resp.URL)
	links = append(links, html...)
	if len(links) == 0 {
		d.triedf("%s has no Link header or <link rel=\"resourcesync\"> naming a ResourceSync document", d.input)
		return
	}
	for _, l := range links {
		d.try(ctx, l, 0)
	}
}

// collections turns the Source Descriptions found into collections.
func (d *rsDiscovery) collections(ctx context.Context) {
	add := func(key, source, describedBy string) {
		spec := db.CollectionSpec{Protocol: ProtocolResourceSync, Key: key, SourceURL: source}
		// Named when first found; an empty title keeps that name.
		if !d.isKnown(key) {
			spec.Title = key
			if describedBy != "" {
				if t := d.htmlTitle(ctx, describedBy); t != "" {
					spec.Title = t
				}
			} else if strings.HasPrefix(key, d.root) {
				// Nothing names the collection: the page it stands for
				// does (for a collection of the whole site, the home
				// page), when it is one of the site's.
				if t := d.pageTitle(ctx, key); t != "" {
					spec.Title = t
				}
			}
		}
		d.add(spec)
	}
	for _, desc := range d.descs {
		n := 0
		for _, e := range desc.Entries {
			if e.Capability != rsync.CapCapabilityList {
				continue
			}
			n++
			key, about := e.Link("describes"), e.Link("describedby")
			if key == "" || about == "" && !d.isKnown(key) {
				key, about = d.fromCapabilityList(ctx, e.Loc, key, about)
			}
			if key == "" {
				key = e.Loc
				d.warnf("neither the Source Description %s nor the capability list %s has rs:ln rel=\"describes\"; it is identified by its own URL", desc.URL, e.Loc)
			}
			add(key, e.Loc, about)
		}
		if n == 0 {
			d.triedf("the Source Description %s lists no capability lists", desc.URL)
		}
	}
	if len(d.descs) > 0 {
		return
	}
	for _, cl := range d.fallbacks {
		key := cl.Link("describes")
		if key == "" {
			key = cl.URL
			d.warnf("the capability list %s has no rs:ln rel=\"describes\"; it is identified by its own URL", cl.URL)
		}
		if d.d.SourceURL == "" {
			d.d.SourceURL = cl.URL
		}
		add(key, cl.URL, cl.Link("describedby"))
	}
}

// fromCapabilityList fills the identity (describes) and title page
// (describedby) of a collection the Source Description left out from the
// capability list's own links, which IFCC-0001 requires of it.
func (d *rsDiscovery) fromCapabilityList(ctx context.Context, u, key, about string) (string, string) {
	cl, err := d.s.doc(ctx, "capability list", u)
	if err != nil {
		d.failed(err)
		return key, about
	}
	if cl == nil || cl.Capability != rsync.CapCapabilityList {
		return key, about
	}
	if d.s.read == nil {
		d.s.read = map[string]*rsync.Document{}
	}
	d.s.read[u] = cl
	if key == "" {
		key = cl.Link("describes")
	}
	if about == "" {
		about = cl.Link("describedby")
	}
	return key, about
}

func trimRsync(err error) string {
	msg := err.Error()
	if len(msg) > 7 && msg[:7] == "rsync: " {
		msg = msg[7:]
	}
	return msg
}
