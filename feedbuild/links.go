package feedbuild

import (
	"strconv"
	"strings"

	"tidings/db"
	"tidings/feeds"
)

// The feed URL scheme. Each feed's address is a base path plus the
// format's extension; the Atom one is the feed's main address. Sites and
// collections are named by their random public ids, so nobody can count
// or walk the sites a tidings follows; the sequential ids of older
// addresses stay in redirects only.

func collectionFeedBase(publicID string) string { return "feeds/" + publicID }

func siteFeedBase(publicID string) string { return "sites/" + publicID }

// collectionPage is a collection's web page, relative to the base URL.
func collectionPage(col db.Collection) string { return "collection/" + col.PublicID }

// ChangePage is the web page of one change of a collection, with its
// whole diff, relative to the base URL.
func ChangePage(col db.Collection, changeID int64) string {
	return collectionPage(col) + "/change/" + strconv.FormatInt(changeID, 10)
}

func userFeedBase(token string) string { return "u/" + token }

// CollectionFeedPath is a collection's Atom feed, relative to the base URL.
func CollectionFeedPath(col db.Collection) string { return collectionFeedBase(col.PublicID) + ".atom" }

// SiteFeedPath is a site's merged Atom feed, relative to the base URL.
func SiteFeedPath(site db.Site) string { return siteFeedBase(site.PublicID) + ".atom" }

// UserFeedPath is a user's aggregate Atom feed, relative to the base URL;
// the token is its only protection.
func UserFeedPath(token string) string { return userFeedBase(token) + ".atom" }

// InFormat turns the URL (or path) of a feed's Atom document into its URL
// in another format.
func InFormat(atomURL string, f feeds.Format) string {
	return strings.TrimSuffix(atomURL, ".atom") + "." + f.Ext()
}

// PerPageURL turns the URL of a feed's document into that of the same
// feed with one entry per change (?entries=page).
func PerPageURL(feedURL string) string { return feedURL + "?entries=page" }
