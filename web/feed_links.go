package web

import (
	"fmt"
	"strings"

	"tidings/feeds"
)

func collectionFeedBase(id int64) string { return fmt.Sprintf("feeds/%d", id) }

func siteFeedBase(id int64) string { return fmt.Sprintf("sites/%d", id) }

// inFormat turns the URL of a feed's Atom document into its URL in
// another format.
func inFormat(atomURL string, f feeds.Format) string {
	return strings.TrimSuffix(atomURL, ".atom") + "." + f.Ext()
}

// RSSURL is the site's merged feed as RSS; FeedURL is its Atom.
func (v siteView) RSSURL() string { return inFormat(v.FeedURL, feeds.RSS) }

// JSONURL is the site's merged feed as JSON Feed.
func (v siteView) JSONURL() string { return inFormat(v.FeedURL, feeds.JSON) }

// RSSURL is the collection's feed as RSS; FeedURL is its Atom.
func (v collectionView) RSSURL() string { return inFormat(v.FeedURL, feeds.RSS) }

// JSONURL is the collection's feed as JSON Feed.
func (v collectionView) JSONURL() string { return inFormat(v.FeedURL, feeds.JSON) }
