package harvest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"tidings/db"
	"tidings/rsync"
)

// ProtocolResourceSync names ResourceSync collections in the store.
const ProtocolResourceSync = "resourcesync"

// maxUpHops bounds how far rel="up" links are followed from a capability
// list, change list or resource list towards the Source Description.
const maxUpHops = 3

// maxCollections bounds the collections one site may declare.
const maxCollections = 200

// Discovery is what finding a site's Source Description yielded.
type Discovery struct {
	SourceURL   string // the Source Description or its index
	SiteTitle   string // from the Source Description's describedby page, when asked for
	Collections []db.CollectionSpec
	Tried       []string // what was looked at, as sentences, in order
	Warnings    []string
}

// SiteRoot returns the root URL of the site that rawURL belongs to, or a
// message a person can act on.
func SiteRoot(rawURL string) (string, error) {
	root, _, err := normalizeInput(rawURL)
	return root, err
}

// normalizeInput accepts what a person types: an address with or without
// its scheme. It returns the site's root and the full input URL.
func normalizeInput(rawURL string) (root, input string, err error) {
	s := strings.TrimSpace(rawURL)
	if s == "" {
		return "", "", problemf("no address was given")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", "", problemf("%q is not a URL", rawURL)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", "", problemf("%q is not an http or https address", rawURL)
	}
	if u.Hostname() == "" {
		return "", "", problemf("%q has no host name", rawURL)
	}
	if u.User != nil {
		// "mailto:ann@example.org" and "https://user:pw@host/" are not sites
		// to fetch, and credentials must not travel to a host.
		return "", "", problemf("%q contains a user name; give the site's address without it", rawURL)
	}
	u.Host = strings.ToLower(u.Host)
	u.Fragment = ""
	if u.Path == "" {
		u.Path = "/"
	}
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
	return r.String(), u.String(), nil
}

// discoverer runs one discovery.
type discoverer struct {
	s         *session
	d         *Discovery
	known     map[string]bool // collection keys already stored: titles not re-fetched
	seen      map[string]bool
	descs     []*rsync.Document
	fallbacks []*rsync.Document // capability lists with no reachable Source Description
	refused   error             // the address policy refused a fetch
}

// discover finds the site's Source Description(s) and their collections:
// first where it was found last time, then /.well-known/resourcesync, then
// robots.txt Sitemap lines, then the page's Link header and
// <link rel="resourcesync">.
// With wantTitle, the site is named after the HTML page the Source
// Description's rs:ln rel="describedby" points to.
func discover(ctx context.Context, s *session, root, input, lastSource string, knownKeys map[string]bool, wantTitle bool) (*Discovery, error) {
	dc := &discoverer{s: s, d: &Discovery{}, known: knownKeys, seen: map[string]bool{}}
	if lastSource != "" {
		dc.try(ctx, lastSource, 0)
	}
	steps := []func(){
		func() { dc.try(ctx, root+".well-known/resourcesync", 0) },
		func() { dc.fromRobots(ctx, root) },
		func() { dc.fromPage(ctx, input) },
	}
	for _, step := range steps {
		if len(dc.descs) > 0 || len(dc.fallbacks) > 0 {
			break
		}
		if dc.refused != nil {
			// Every other fetch would be refused the same way.
			return dc.d, dc.refused
		}
		step()
	}
	if dc.refused != nil && len(dc.descs) == 0 && len(dc.fallbacks) == 0 {
		return dc.d, dc.refused
	}
	if err := dc.collections(ctx); err != nil {
		return dc.d, err
	}
	if wantTitle && len(dc.descs) > 0 {
		if about := dc.descs[0].Link("describedby"); about != "" {
			if t := dc.title(ctx, about, ""); t != "" {
				dc.d.SiteTitle = t
			}
		}
	}
	return dc.d, nil
}

func (dc *discoverer) tried(format string, args ...any) {
	dc.d.Tried = append(dc.d.Tried, fmt.Sprintf(format, args...))
}

// failed records a fetch that went wrong.
func (dc *discoverer) failed(err error) {
	var ae *AddressError
	if errors.As(err, &ae) && dc.refused == nil {
		dc.refused = err
	}
	dc.tried("%s", err.Error())
}

// try fetches a candidate document and follows it to a Source Description.
func (dc *discoverer) try(ctx context.Context, u string, hops int) {
	if dc.seen[u] {
		return
	}
	dc.seen[u] = true
	doc, err := dc.s.doc(ctx, "", u)
	if err != nil {
		dc.failed(err)
		return
	}
	if doc == nil {
		dc.tried("%s was not modified but nothing was remembered of it", u)
		return
	}
	dc.classify(ctx, doc, u, hops)
}

func (dc *discoverer) classify(ctx context.Context, doc *rsync.Document, label string, hops int) {
	switch {
	case doc.Capability == rsync.CapDescription && doc.IsIndex():
		dc.d.SourceURL = doc.URL
		dc.tried("%s is a Source Description Index of %d Source Descriptions", label, len(doc.Entries))
		for _, e := range doc.Entries {
			dc.tryDescription(ctx, e.Loc)
		}
	case doc.Capability == rsync.CapDescription:
		if dc.d.SourceURL == "" {
			dc.d.SourceURL = doc.URL
		}
		dc.descs = append(dc.descs, doc)
	case doc.Capability == "":
		dc.tried("%s is a plain sitemap, not a ResourceSync document", label)
	default:
		dc.up(ctx, doc, label, hops)
	}
}

func (dc *discoverer) tryDescription(ctx context.Context, u string) {
	if dc.seen[u] {
		return
	}
	dc.seen[u] = true
	doc, err := dc.s.doc(ctx, "Source Description", u)
	switch {
	case err != nil:
		dc.failed(err)
	case doc == nil:
		dc.tried("Source Description %s was not modified but nothing was remembered of it", u)
	case doc.Capability != rsync.CapDescription || doc.IsIndex():
		dc.tried("%s, listed in the Source Description Index, is not a Source Description", u)
	default:
		dc.descs = append(dc.descs, doc)
	}
}

// up follows rel="up" from a lower-level document towards the Source
// Description. A capability list whose Source Description cannot be reached
// is still a collection of its own.
func (dc *discoverer) up(ctx context.Context, doc *rsync.Document, label string, hops int) {
	parent := doc.Link("up")
	if doc.Capability == rsync.CapCapabilityList {
		dc.fallbacks = append(dc.fallbacks, doc)
	}
	if parent == "" || hops >= maxUpHops {
		dc.tried("%s is a ResourceSync %s with no rs:ln rel=\"up\" to follow", label, doc.Capability)
		return
	}
	dc.tried("%s is a ResourceSync %s; following rel=\"up\" to %s", label, doc.Capability, parent)
	dc.try(ctx, parent, hops+1)
}

func (dc *discoverer) fromRobots(ctx context.Context, root string) {
	dc.s.documents++
	resp, err := dc.s.c.Get(ctx, root+"robots.txt", Conditional{})
	if err != nil {
		dc.failed(err)
		return
	}
	maps := rsync.RobotsSitemaps(bytes.NewReader(resp.Body), resp.URL)
	if len(maps) == 0 {
		dc.tried("robots.txt lists no sitemaps")
		return
	}
	for i, m := range maps {
		if i >= 10 {
			dc.tried("robots.txt lists %d sitemaps; only the first 10 were looked at", len(maps))
			break
		}
		dc.try(ctx, m, 0)
	}
}

// fromPage looks for the page's Link: <…>; rel="resourcesync" header and
// <link rel="resourcesync"> elements; a pasted ResourceSync document URL is
// taken as it is.
func (dc *discoverer) fromPage(ctx context.Context, page string) {
	dc.s.documents++
	resp, err := dc.s.c.Get(ctx, page, Conditional{})
	if err != nil {
		dc.failed(err)
		return
	}
	if doc, err := rsync.Parse(bytes.NewReader(resp.Body), resp.URL); err == nil {
		dc.seen[page] = true
		dc.classify(ctx, doc, page, 0)
		return
	}
	links := rsync.LinkHeader(resp.Header.Values("Link"), resp.URL, "resourcesync")
	html, _ := rsync.HTMLHints(bytes.NewReader(resp.Body), resp.URL)
	links = append(links, html...)
	if len(links) == 0 {
		dc.tried("%s has no Link header or <link rel=\"resourcesync\"> naming a ResourceSync document", page)
		return
	}
	for _, l := range links {
		dc.try(ctx, l, 0)
	}
}

// collections turns the Source Descriptions found into collection specs.
func (dc *discoverer) collections(ctx context.Context) error {
	byKey := map[string]bool{}
	add := func(spec db.CollectionSpec) {
		if byKey[spec.Key] || len(dc.d.Collections) >= maxCollections {
			return
		}
		byKey[spec.Key] = true
		if dc.known[spec.Key] {
			// Named when first found; an empty title keeps that name.
			spec.Title = ""
		} else {
			spec.Title = dc.title(ctx, spec.Title, spec.Key)
		}
		dc.d.Collections = append(dc.d.Collections, spec)
	}
	for _, desc := range dc.descs {
		for _, e := range desc.Entries {
			if e.Capability != rsync.CapCapabilityList {
				continue
			}
			key := e.Link("describes")
			if key == "" {
				key = e.Loc
				dc.d.Warnings = append(dc.d.Warnings, fmt.Sprintf(
					"the Source Description %s lists the capability list %s without rs:ln rel=\"describes\"; it is identified by its own URL", desc.URL, e.Loc))
			}
			add(db.CollectionSpec{Protocol: ProtocolResourceSync, Key: key, SourceURL: e.Loc, Title: e.Link("describedby")})
		}
	}
	if len(dc.descs) == 0 {
		for _, cl := range dc.fallbacks {
			key := cl.Link("describes")
			if key == "" {
				key = cl.URL
				dc.d.Warnings = append(dc.d.Warnings, fmt.Sprintf("the capability list %s has no rs:ln rel=\"describes\"; it is identified by its own URL", cl.URL))
			}
			if dc.d.SourceURL == "" {
				dc.d.SourceURL = cl.URL
			}
			add(db.CollectionSpec{Protocol: ProtocolResourceSync, Key: key, SourceURL: cl.URL, Title: cl.Link("describedby")})
		}
	}
	if len(dc.d.Collections) == 0 {
		if len(dc.descs) > 0 {
			return problemf("the Source Description %s lists no capability lists", dc.descs[0].URL)
		}
		return problemf("no ResourceSync Source Description was found; tried: %s", strings.Join(dc.d.Tried, "; "))
	}
	return nil
}

// title names a collection: the <title> of the HTML page its describedby
// link points to, else the URL it describes.
func (dc *discoverer) title(ctx context.Context, describedBy, key string) string {
	if describedBy == "" {
		return key
	}
	dc.s.documents++
	resp, err := dc.s.c.Get(ctx, describedBy, Conditional{})
	if err != nil {
		dc.d.Warnings = append(dc.d.Warnings, "describedby "+err.Error())
		return key
	}
	if !strings.Contains(strings.ToLower(resp.ContentType), "html") {
		return key
	}
	if _, t := rsync.HTMLHints(bytes.NewReader(resp.Body), resp.URL); t != "" {
		return t
	}
	return key
}
