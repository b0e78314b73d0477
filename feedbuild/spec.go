package feedbuild

import (
	"context"
	"fmt"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// Spec is one feed, whatever its format and page: what it holds and how
// it is named. Specs come from CollectionSpec, SiteSpec and UserSpec.
type Spec struct {
	Scope db.Scope
	// Path is the feed's address relative to the base URL, without the
	// format's extension ("feeds/12").
	Path string
	// Meta holds the feed's ID, Title, Subtitle and AlternateURL.
	Meta feeds.Feed
	// Created is the feed's Updated time while it has no entries.
	Created time.Time
	// collections loads the collections the entries may come from.
	collections func(context.Context) (map[int64]db.Collection, error)
}

// CollectionSpec is the feed of one collection; a collection that does
// not exist is db.ErrNotFound, one of a site nobody follows any more a
// *GoneError.
func (b *Builder) CollectionSpec(ctx context.Context, id int64) (*Spec, error) {
	col, err := b.store.CollectionByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := b.collectionSite(ctx, col); err != nil {
		return nil, err
	}
	return &Spec{
		Scope: db.Scope{CollectionID: col.ID},
		Path:  collectionFeedBase(col.ID),
		Meta: feeds.Feed{
			ID:           b.tag(col.CreatedAt, fmt.Sprintf("collection/%d", col.ID)),
			Title:        col.Title,
			Subtitle:     collectionSubtitle(col),
			AlternateURL: CollectionHome(col),
		},
		Created: col.CreatedAt,
		collections: func(context.Context) (map[int64]db.Collection, error) {
			return map[int64]db.Collection{col.ID: col}, nil
		},
	}, nil
}

// SiteSpec is the merged feed of every collection of one site; a site
// that does not exist is db.ErrNotFound, one nobody follows any more a
// *GoneError.
func (b *Builder) SiteSpec(ctx context.Context, id int64) (*Spec, error) {
	site, err := b.store.SiteByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := checkFollowed(site); err != nil {
		return nil, err
	}
	title := site.Title
	if title == "" {
		title = site.URL
	}
	return &Spec{
		Scope: db.Scope{SiteID: site.ID},
		Path:  siteFeedBase(site.ID),
		Meta: feeds.Feed{
			ID:           b.tag(site.CreatedAt, fmt.Sprintf("site/%d", site.ID)),
			Title:        title,
			Subtitle:     "Changes to every collection of " + site.URL,
			AlternateURL: site.URL,
		},
		Created: site.CreatedAt,
		collections: func(ctx context.Context) (map[int64]db.Collection, error) {
			return b.collectionMap(ctx, db.CollectionFilter{SiteID: site.ID})
		},
	}, nil
}

// UserSpec is the aggregate feed of everything one user follows, found by
// its secret token; an unknown or replaced token is db.ErrNotFound.
func (b *Builder) UserSpec(ctx context.Context, token string) (*Spec, error) {
	u, err := b.store.UserByFeedToken(ctx, token)
	if err != nil {
		return nil, err
	}
	return &Spec{
		Scope: db.Scope{UserID: u.ID},
		Path:  userFeedBase(token),
		Meta: feeds.Feed{
			ID:           b.tag(u.CreatedAt, fmt.Sprintf("user/%d", u.ID)),
			Title:        "Everything " + u.Name + " follows",
			AlternateURL: b.URL(""),
		},
		Created: u.CreatedAt,
		collections: func(ctx context.Context) (map[int64]db.Collection, error) {
			return b.collectionMap(ctx, db.CollectionFilter{})
		},
	}, nil
}

// collectionMap loads collections by id.
func (b *Builder) collectionMap(ctx context.Context, f db.CollectionFilter) (map[int64]db.Collection, error) {
	list, err := b.store.Collections(ctx, f)
	if err != nil {
		return nil, err
	}
	cols := make(map[int64]db.Collection, len(list))
	for _, col := range list {
		cols[col.ID] = col
	}
	return cols, nil
}

// collectionSubtitle says how precise a collection's feed is: one not
// built from change information the site publishes says how it is made.
func collectionSubtitle(col db.Collection) string {
	switch col.Protocol {
	case db.ProtocolResourceSync, db.ProtocolSCP, db.ProtocolARC:
		return "Changes to " + col.Key + ", as the site's change information tells them"
	}
	return "Changes to " + col.Key + " (" + col.Source() + ")"
}

// CollectionHome is the web page a collection stands for: a ResourceSync
// collection's describes URL; for SCP sections and ARC sitemaps, whose keys
// name documents rather than pages, the site itself.
func CollectionHome(col db.Collection) string {
	if col.Protocol == db.ProtocolResourceSync || col.Protocol == db.ProtocolSitemap {
		return col.Key
	}
	return col.SiteURL
}
