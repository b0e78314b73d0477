package feedbuild

import (
	"context"
	"fmt"
	"slices"

	"tidings/db"
	"tidings/feeds"
)

// Harvested is one collection's harvest as stored: what ChangedFeeds
// judges a harvest by. A harvest.CollectionReport converts to it.
type Harvested struct {
	Collection db.Collection
	Run        db.Run
}

// ChangedFeeds lists the URLs of the feeds the harvest of site siteID gave new
// entries, in every format and entry mode: each one's WebSub topic, to be
// pinged once. Topics are the public-id addresses readers subscribe to;
// the old numeric ones only redirect there, and a hub that fetched one
// would follow the redirect to the same document. A collection's feeds changed when its run stored new
// changes or began or ended a failing streak its feed tells of; then so
// did its site's feed and the aggregate feed of everyone following the
// site.
func (b *Builder) ChangedFeeds(ctx context.Context, siteID int64, harvested []Harvested) ([]string, error) {
	var bases []string
	for _, cr := range harvested {
		changed, err := b.collectionChanged(ctx, cr)
		if err != nil {
			return nil, err
		}
		if changed {
			bases = append(bases, collectionFeedBase(cr.Collection.PublicID))
		}
	}
	if len(bases) == 0 {
		return nil, nil
	}
	site, err := b.store.SiteByID(ctx, siteID)
	if err != nil {
		return nil, fmt.Errorf("feedbuild: feeds changed on site %d: %w", siteID, err)
	}
	bases = append(bases, siteFeedBase(site.PublicID))
	tokens, err := b.store.FollowerFeedTokens(ctx, siteID)
	if err != nil {
		return nil, err
	}
	for _, t := range tokens {
		bases = append(bases, userFeedBase(t))
	}
	var topics []string
	for _, base := range bases {
		for _, f := range feeds.Formats {
			u := b.URL(base + "." + f.Ext())
			topics = append(topics, u, u+"?entries=page")
		}
	}
	return slices.Compact(topics), nil
}

// collectionChanged tells whether the run added entries to the
// collection's feed: changes, its "now following" entry, or a status
// entry dated by this run.
func (b *Builder) collectionChanged(ctx context.Context, cr Harvested) (bool, error) {
	if cr.Run.Changes > 0 || cr.Run.Following {
		return true, nil
	}
	outages, err := b.store.Outages(ctx, db.Scope{CollectionID: cr.Collection.ID}, b.opts.FailingAfter)
	if err != nil {
		return false, fmt.Errorf("feedbuild: feeds changed by run %d: %w", cr.Run.ID, err)
	}
	for _, o := range outages {
		for _, it := range b.statusItems(collectionScope(cr.Collection), o, cr.Collection) {
			if it.key.at.Equal(cr.Run.FinishedAt) {
				return true, nil
			}
		}
	}
	return false, nil
}
