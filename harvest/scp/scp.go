// Package scp is the adapter of the Site Content Protocol: it finds the
// sections a site's sitemaps advertise and harvests each from its
// snapshots and deltas, through the core's exported API.
package scp

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/scpbridge"
	"tidings/source"
)

// Name names SCP collections in the store: one per section of a
// sitemap, keyed by the sitemap's URL, "#" and the section's name.
const Name = "scp"

// maxSitemapChildren bounds the child sitemaps of a sitemap index looked
// at during discovery.
const maxSitemapChildren = 20

func init() {
	harvest.Register(Source{}, source.Info{Tier: 0, Rank: 2, Help: "SCP collections", Published: true,
		NewSettings: func() source.Settings { s := Settings{}.withDefaults(); return &s },
		Follows:     func(int) string { return "follows the site's SCP snapshots and deltas" }})
}

// Source follows the Site Content Protocol: sections advertised in
// sitemap.xml, each with snapshots and deltas.
type Source struct{}

// Name is the name SCP collections are stored under.
func (Source) Name() string { return Name }

// scpKey is a section's collection key.
func scpKey(sitemap, section string) string { return sitemap + "#" + section }

// scpSection splits a collection key into its sitemap and section.
func scpSection(key string) (sitemap, section string) {
	i := strings.LastIndexByte(key, '#')
	if i < 0 {
		return key, ""
	}
	return key[:i], key[i+1:]
}

// Discover looks for scp: elements in /sitemap.xml, in the sitemaps that
// robots.txt names, and in the sitemaps one level below a sitemap index.
func (Source) Discover(ctx context.Context, sd *harvest.SiteDiscovery) error {
	d := &scpDiscovery{SiteDiscovery: sd, seen: map[string]bool{}}
	candidates := append([]string{sd.Root() + "sitemap.xml"}, sd.RobotsSitemaps(ctx)...)
	for i, u := range candidates {
		if i > 10 {
			break
		}
		d.try(ctx, u, true)
		if sd.Refused() {
			return nil
		}
	}
	if d.found == 0 && d.unsure != nil {
		// A sitemap could not be read this time; the sections found
		// before are kept.
		return d.unsure
	}
	return nil
}

type scpDiscovery struct {
	*harvest.SiteDiscovery
	seen   map[string]bool
	found  int
	unsure error
}

func (d *scpDiscovery) try(ctx context.Context, u string, top bool) {
	if d.seen[u] {
		return
	}
	d.seen[u] = true
	resp, err := d.Get(ctx, u)
	if err != nil {
		if !fetch.Gone(err) {
			d.unsure = err
		}
		d.Failed(err)
		return
	}
	sm, err := scpbridge.ParseSitemap(bytes.NewReader(resp.Body), resp.URL)
	if err != nil {
		d.Tried("%s is not a sitemap, so not an SCP one", u)
		return
	}
	if len(sm.Sitemaps) > 0 && top {
		n := len(sm.Sitemaps)
		if n > maxSitemapChildren {
			d.Tried("the sitemap index %s lists %d sitemaps; only the first %d were looked at for SCP", u, n, maxSitemapChildren)
			n = maxSitemapChildren
		}
		for _, child := range sm.Sitemaps[:n] {
			d.try(ctx, child, false)
		}
	}
	if !sm.HasSCP() {
		if sm.Root == "urlset" {
			d.Tried("%s is a sitemap without the SCP extension", u)
		}
		return
	}
	d.sections(u, sm)
}

// sections turns a sitemap's SCP sections into collections: each declared
// or referenced section that offers a snapshot or a delta.
func (d *scpDiscovery) sections(u string, sm *scpbridge.Sitemap) {
	for _, w := range sm.Warnings {
		d.Warn("%s: %s", u, w)
	}
	offered := map[string]bool{}
	var names []string
	for _, f := range sm.Files {
		if !offered[f.Section] {
			offered[f.Section] = true
			names = append(names, f.Section)
		}
	}
	for _, s := range sm.Sections {
		if !offered[s.Name] {
			d.Warn("the SCP section %q of %s offers no snapshot or delta; it is not followed", s.Name, u)
		}
	}
	host := u
	if pu, err := url.Parse(u); err == nil {
		host = pu.Host
	}
	for _, name := range names {
		key := scpKey(u, name)
		spec := db.CollectionSpec{Protocol: Name, Key: key, SourceURL: u}
		if !d.Known(key) {
			spec.Title = fmt.Sprintf("%s (%s)", name, host)
		}
		d.Add(spec)
		d.found++
	}
	d.Tried("%s declares SCP sections: %s", u, strings.Join(names, ", "))
}
