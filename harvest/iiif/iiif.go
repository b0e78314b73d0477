// Package iiif is the IIIF Change Discovery source: museums, libraries
// and archives publish what changed in their collections as an Activity
// Streams OrderedCollection of Create, Update, Delete, Move, Add, Remove
// and Refresh activities. One stream is one collection, keyed by its URL,
// read newest page first and backwards to the last harvest (the spec's
// section 3.5).
package iiif

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	iiifdoc "tidings/iiif"
	"tidings/source"
)

// Name names IIIF stream collections in the store.
const Name = "iiif"

func init() {
	harvest.Register(Source{}, source.Info{Tier: 0, Rank: 3, Help: "IIIF Change Discovery streams", Published: true,
		Follows:     func(int) string { return "follows the collection's IIIF Change Discovery stream" },
		NewSettings: func() source.Settings { return &Settings{} }})
}

// Source follows IIIF Change Discovery API 1.0 streams.
type Source struct{}

// Name is the name IIIF collections are stored under.
func (Source) Name() string { return Name }

// discovery is one discovery of a site's streams.
type discovery struct {
	*harvest.SiteDiscovery
	seen   map[string]bool
	found  int
	unsure error // a stream followed before could not be fetched this time
}

// Discover takes the address given as a stream when it is one (an
// OrderedCollection, or a page of one, whose collection is then taken),
// else reads it, then the site's home page, for <link rel="alternate">
// to a stream. Documents are judged by their content: streams are served
// as application/ld+json, application/json and even text/plain.
func (Source) Discover(ctx context.Context, sd *harvest.SiteDiscovery) error {
	d := &discovery{SiteDiscovery: sd, seen: map[string]bool{}}
	pages := []string{sd.Input()}
	if sd.Input() != sd.Root() {
		pages = append(pages, sd.Root())
	}
	for _, p := range pages {
		d.fromPage(ctx, p)
		if d.found > 0 || sd.Halted() {
			break
		}
	}
	if d.found == 0 && d.unsure != nil {
		return d.unsure
	}
	return nil
}

// fromPage reads a page: a stream pasted as it is, or an HTML page that
// links one.
func (d *discovery) fromPage(ctx context.Context, page string) {
	if d.followed(page) {
		d.try(ctx, page, "")
		return
	}
	resp, err := d.Get(ctx, page)
	if err != nil {
		d.Failed(err)
		return
	}
	if looksJSON(resp.Body) {
		d.seen[page] = true
		d.accept(ctx, page, resp, "")
		return
	}
	links := iiifdoc.StreamLinks(bytes.NewReader(resp.Body), resp.URL)
	if len(links) == 0 {
		if !d.HasTried(page + " links no IIIF change stream") {
			d.Tried("%s links no IIIF change stream", page)
		}
		return
	}
	for _, l := range links {
		d.try(ctx, l, page)
	}
}

// followed reports whether u is a stream this site is followed by: Known
// says so of any source's key (a sitemap's is the site's root).
func (d *discovery) followed(u string) bool {
	for _, c := range d.Stored() {
		if c.Protocol == Name && c.Key == u {
			return d.Known(u)
		}
	}
	return false
}

// looksJSON: a body that begins as a JSON object is read as one, whatever
// its Content-Type said.
func looksJSON(b []byte) bool {
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	return len(b) > 0 && b[0] == '{'
}

// try fetches a candidate stream (linked from page, when not "") and
// takes it if it is one. A stream followed before is fetched
// conditionally; its validators are its harvest's to keep.
func (d *discovery) try(ctx context.Context, u, page string) {
	if d.seen[u] {
		return
	}
	d.seen[u] = true
	if !d.followed(u) {
		resp, err := d.Get(ctx, u)
		if err != nil {
			d.Failed(err)
			return
		}
		d.accept(ctx, u, resp, page)
		return
	}
	resp, _, err := d.Fetch(ctx, "", u)
	if err != nil {
		if !fetch.Gone(err) {
			d.unsure = err
		}
		d.Failed(err)
		return
	}
	if resp.NotModified {
		d.Tried("%s, a IIIF change stream, was not modified", u)
		d.Add(db.CollectionSpec{Protocol: Name, Key: u, SourceURL: u})
		d.found++
		return
	}
	d.accept(ctx, u, resp, page)
}

// accept takes u as a stream when its content is one. A page of a
// stream stands for its collection (partOf).
func (d *discovery) accept(ctx context.Context, u string, resp *fetch.Response, page string) {
	doc, err := iiifdoc.Parse(bytes.NewReader(resp.Body))
	if err == nil && doc.Page != nil {
		if doc.Page.PartOf == "" || doc.Page.PartOf == u {
			err = &iiifdoc.Error{Msg: "it is a page of a stream that names no collection (partOf)", Err: iiifdoc.ErrNotStream}
		} else {
			d.Tried("%s is a page of the IIIF change stream %s", u, doc.Page.PartOf)
			d.try(ctx, doc.Page.PartOf, page)
			return
		}
	}
	if err != nil {
		d.reject(ctx, u, page, err)
		return
	}
	c := doc.Collection
	d.Tried("%s is a IIIF change stream (its newest page: %s)", u, c.Last)
	spec := db.CollectionSpec{Protocol: Name, Key: u, SourceURL: u}
	if !d.followed(u) {
		spec.Title = d.title(ctx, c, page)
	}
	d.Add(spec)
	d.found++
}

// reject says why u is no stream. One a page links as a stream, or one
// followed before, is a broken stream, which the site's run reports.
func (d *discovery) reject(ctx context.Context, u, page string, err error) {
	msg := strings.TrimPrefix(err.Error(), "iiif: ")
	if page == "" && !d.followed(u) && (errors.Is(err, iiifdoc.ErrNotJSON) || errors.Is(err, iiifdoc.ErrNotStream)) {
		// Any JSON pasted is tried; only what claims to be a stream is
		// a broken one.
		d.Tried("%s is not a IIIF change stream: %s", u, msg)
		return
	}
	harvest.NoteRejected(ctx, Name, "IIIF change stream", u, err)
	d.Broken("the IIIF change stream %s is not valid: %s", u, msg)
	d.Tried("%s is not a IIIF change stream: %s", u, msg)
	if d.followed(u) {
		// Followed before: its harvest says what is wrong with it.
		d.Add(db.CollectionSpec{Protocol: Name, Key: u, SourceURL: u})
		d.found++
	}
}

// title names a new collection: the stream's label, else the <title> of
// the page that linked it or of the home page, else the stream's URL.
func (d *discovery) title(ctx context.Context, c *iiifdoc.Collection, page string) string {
	if t := c.Label.Pick(""); t != "" {
		return t
	}
	for _, p := range []string{page, d.Root()} {
		if p == "" {
			continue
		}
		if t := d.HTMLTitle(ctx, p); t != "" {
			return t
		}
	}
	return c.ID
}
