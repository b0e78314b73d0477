package feedbuild

import (
	"fmt"
	"strings"

	"tidings/feeds"
)

// The feed URL scheme. Each feed's address is a base path plus the
// format's extension; the Atom one is the feed's main address.

func collectionFeedBase(id int64) string { return fmt.Sprintf("feeds/%d", id) }

func siteFeedBase(id int64) string { return fmt.Sprintf("sites/%d", id) }

func userFeedBase(token string) string { return "u/" + token }

// CollectionFeedPath is a collection's Atom feed, relative to the base URL.
func CollectionFeedPath(id int64) string { return collectionFeedBase(id) + ".atom" }

// SiteFeedPath is a site's merged Atom feed, relative to the base URL.
func SiteFeedPath(id int64) string { return siteFeedBase(id) + ".atom" }

// UserFeedPath is a user's aggregate Atom feed, relative to the base URL;
// the token is its only protection.
func UserFeedPath(token string) string { return userFeedBase(token) + ".atom" }

// InFormat turns the URL (or path) of a feed's Atom document into its URL
// in another format.
func InFormat(atomURL string, f feeds.Format) string {
	return strings.TrimSuffix(atomURL, ".atom") + "." + f.Ext()
}
