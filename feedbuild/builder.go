// Package feedbuild turns stored changes into feed documents: which
// entries a feed holds (one digest per harvest run, or one entry per
// change, and the status entries of failing streaks), how they are paged,
// their stable ids, the feed URL scheme, and which feeds a harvest
// changed. It reads the store and hands feeds.Feed values to the
// renderer; serving them over HTTP is the web package's job, and the CLI
// uses it for feed addresses and WebSub pings.
package feedbuild

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// DefaultFeedEntries is how many entries a feed document carries.
const DefaultFeedEntries = 50

// DefaultFailingAfter is how long a collection's harvests fail before its
// feeds say so.
const DefaultFailingAfter = 72 * time.Hour

// Options configure a Builder.
type Options struct {
	BaseURL string // public URL of this tidings, ending in "/"
	// FeedEntries is how many entries one document holds; 0 =
	// DefaultFeedEntries.
	FeedEntries int
	// FailingAfter is how long a collection's harvests fail before its
	// feeds say so; 0 = DefaultFailingAfter.
	FailingAfter time.Duration
	// HubURL, when set, is the WebSub hub every feed names (rel="hub").
	HubURL string
}

// Builder builds the feed documents of one tidings from its store.
type Builder struct {
	store *db.DB
	base  *url.URL
	opts  Options
}

// New returns a Builder reading store; the base URL must parse.
func New(store *db.DB, o Options) (*Builder, error) {
	if o.FeedEntries <= 0 {
		o.FeedEntries = DefaultFeedEntries
	}
	if o.FailingAfter <= 0 {
		o.FailingAfter = DefaultFailingAfter
	}
	base, err := url.Parse(o.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("feedbuild: base URL %q: %w", o.BaseURL, err)
	}
	return &Builder{store: store, base: base, opts: o}, nil
}

// Page says which document of a feed to build.
type Page struct {
	// PerPage asks for one entry per change (?entries=page) instead of
	// one digest per harvest run.
	PerPage bool
	// Before, when set, asks for the entries older than it (?before=);
	// nil is the newest page.
	Before *Cursor
}

// Build returns one document of the feed spec describes, in format:
// its entries, its Updated time, and its links (self, hub, first and
// next page). stamp is the store's Stamp of spec.Scope, read before
// anything it vouches for.
func (b *Builder) Build(ctx context.Context, spec *Spec, format feeds.Format, pg Page, stamp db.FeedStamp) (*feeds.Feed, error) {
	cols, err := spec.collections(ctx)
	if err != nil {
		return nil, err
	}
	p, err := b.loadPage(ctx, spec, pg.PerPage, pg.Before, stamp, cols)
	if err != nil {
		return nil, err
	}
	f := spec.Meta
	// The two entry modes are two subscriptions a reader may hold side
	// by side: their titles tell them apart.
	if pg.PerPage {
		f.Title += " — every page"
		f.ID += perPageFeed
	} else {
		f.Title += " — changes"
	}
	f.Updated = p.updated
	f.HubURL = b.opts.HubURL
	f.SelfURL = b.feedURL(spec.Path, format, pg.PerPage, pg.Before)
	if pg.Before != nil {
		f.FirstURL = b.feedURL(spec.Path, format, pg.PerPage, nil)
	}
	if p.next != nil {
		f.NextURL = b.feedURL(spec.Path, format, pg.PerPage, p.next)
	}
	f.Entries = p.entries
	return &f, nil
}

// feedURL is the absolute URL of one page of a feed in format.
func (b *Builder) feedURL(path string, format feeds.Format, perPage bool, before *Cursor) string {
	u := b.URL(path + "." + format.Ext())
	q := url.Values{}
	if perPage {
		q.Set("entries", "page")
	}
	if before != nil {
		q.Set("before", before.String())
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// URL turns a path relative to the base URL into an absolute URL.
func (b *Builder) URL(path string) string {
	return b.base.JoinPath(path).String()
}

// tag builds entry and feed ids (see ids.go) under the base URL's host.
func (b *Builder) tag(date time.Time, specific string) string {
	return feeds.TagURI(b.base.Host, date, specific)
}
