package web

import (
	"tidings/feedbuild"
	"tidings/feeds"
)

// RSSURL is the site's merged feed as RSS; FeedURL is its Atom.
func (v siteView) RSSURL() string { return feedbuild.InFormat(v.FeedURL, feeds.RSS) }

// JSONURL is the site's merged feed as JSON Feed.
func (v siteView) JSONURL() string { return feedbuild.InFormat(v.FeedURL, feeds.JSON) }

// RSSURL is the collection's feed as RSS; FeedURL is its Atom.
func (v collectionView) RSSURL() string { return feedbuild.InFormat(v.FeedURL, feeds.RSS) }

// JSONURL is the collection's feed as JSON Feed.
func (v collectionView) JSONURL() string { return feedbuild.InFormat(v.FeedURL, feeds.JSON) }
