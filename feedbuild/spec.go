package feedbuild

import (
	"context"
	"time"

	"tidings/db"
	"tidings/feeds"
	"tidings/source"
)

// Spec is one feed, whatever its format and page: what it holds and how
// it is named. Specs come from CollectionSpec, SiteSpec and UserSpec.
type Spec struct {
	Scope db.Scope
	// Path is the feed's address relative to the base URL, without the
	// format's extension ("feeds/<public id>").
	Path string
	// Meta holds the feed's ID, Title, Subtitle and AlternateURL.
	Meta feeds.Feed
	// Created is the feed's Updated time while it has no entries.
	Created time.Time
	// ids is what the feed's id and its entries' ids share.
	ids idScope
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
	return b.collectionSpec(ctx, col)
}

// CollectionSpecByPublicID is CollectionSpec for the collection whose
// public id, as in its feed's address, is publicID.
func (b *Builder) CollectionSpecByPublicID(ctx context.Context, publicID string) (*Spec, error) {
	col, err := b.store.CollectionByPublicID(ctx, publicID)
	if err != nil {
		return nil, err
	}
	return b.collectionSpec(ctx, col)
}

func (b *Builder) collectionSpec(ctx context.Context, col db.Collection) (*Spec, error) {
	if err := b.collectionSite(ctx, col); err != nil {
		return nil, err
	}
	ids := collectionScope(col)
	return &Spec{
		Scope: db.Scope{CollectionID: col.ID},
		Path:  collectionFeedBase(col.PublicID),
		ids:   ids,
		Meta: feeds.Feed{
			ID:           b.feedID(ids),
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
	return b.siteSpec(site)
}

// SiteSpecByPublicID is SiteSpec for the site whose public id, as in its
// feed's address, is publicID.
func (b *Builder) SiteSpecByPublicID(ctx context.Context, publicID string) (*Spec, error) {
	site, err := b.store.SiteByPublicID(ctx, publicID)
	if err != nil {
		return nil, err
	}
	return b.siteSpec(site)
}

func (b *Builder) siteSpec(site db.Site) (*Spec, error) {
	if err := checkFollowed(site); err != nil {
		return nil, err
	}
	title := site.Title
	if title == "" {
		title = site.URL
	}
	// A site's only collection often bears the site's name: a reader's
	// feed picker holding both must tell them apart.
	title += siteFeedSuffix
	ids := siteScope(site)
	return &Spec{
		Scope: db.Scope{SiteID: site.ID},
		Path:  siteFeedBase(site.PublicID),
		ids:   ids,
		Meta: feeds.Feed{
			ID:           b.feedID(ids),
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

// siteFeedSuffix ends the title of a site's feed, after the site's name:
// its collections' feeds are named by the collection.
const siteFeedSuffix = " (all collections)"

// UserSpec is the aggregate feed of everything one user follows, found by
// its secret token; an unknown or replaced token is db.ErrNotFound.
func (b *Builder) UserSpec(ctx context.Context, token string) (*Spec, error) {
	u, err := b.store.UserByFeedToken(ctx, token)
	if err != nil {
		return nil, err
	}
	ids := userScope(u)
	return &Spec{
		Scope: db.Scope{UserID: u.ID},
		Path:  userFeedBase(token),
		ids:   ids,
		Meta: feeds.Feed{
			ID:           b.feedID(ids),
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
	return source.Subtitle(col.Protocol, col.Key, col.Watched)
}

// CollectionHome is the web page a collection stands for: its key where
// its source keys collections by a page (a ResourceSync collection's
// describes URL, a sitemap's scope), else the site.
func CollectionHome(col db.Collection) string {
	return source.Home(col.Protocol, col.Key, col.SiteURL)
}
