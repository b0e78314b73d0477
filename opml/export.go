package opml

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"time"

	"tidings/db"
	"tidings/feedbuild"
)

// Entries says which feed of each collection an export lists: a reader
// subscribes to one entry per harvest or to one entry per changed page.
type Entries int

// The two entry modes of a collection's feed.
const (
	Digests Entries = iota // one entry per harvest: the feed's address
	PerPage                // one entry per change: ?entries=page
)

// ParseEntries reads the entry mode as the feeds' ?entries= parameter
// names it: "page", or "" (also "digest") for digests.
func ParseEntries(s string) (Entries, bool) {
	switch s {
	case "", "digest":
		return Digests, true
	case "page":
		return PerPage, true
	}
	return Digests, false
}

// WriteUser writes the OPML 2.0 export of everything a user follows: one
// outline per site holding one per collection feed, at its address under
// baseURL, in the entry mode asked. The web page and the CLI's opml export
// share it.
func WriteUser(ctx context.Context, store *db.DB, baseURL string, u db.User, entries Entries, w io.Writer) error {
	base, err := url.Parse(baseURL)
	if err != nil {
		return fmt.Errorf("opml: base URL %q: %w", baseURL, err)
	}
	sites, err := store.FollowedSites(ctx, u.ID)
	if err != nil {
		return err
	}
	named, err := store.FollowTitles(ctx, u.ID)
	if err != nil {
		return err
	}
	var out []Site
	for _, site := range sites {
		cols, err := store.Collections(ctx, db.CollectionFilter{SiteID: site.ID, ActiveOnly: true})
		if err != nil {
			return err
		}
		title := site.Title
		if title == "" {
			title = site.URL
		}
		// The name the person's reader gave the site, imported with it,
		// is theirs to keep: it names the folder, and the feed when the
		// site has one.
		own := named[site.ID]
		if own != "" {
			title = own
		}
		entry := Site{Title: title, HTMLURL: site.URL}
		for _, col := range cols {
			name := col.Title
			if own != "" && len(cols) == 1 {
				name = own
			}
			feed := base.JoinPath(feedbuild.CollectionFeedPath(col)).String()
			if entries == PerPage {
				feed = feedbuild.PerPageURL(feed)
			}
			entry.Feeds = append(entry.Feeds, Feed{Title: name, XMLURL: feed, HTMLURL: feedbuild.CollectionHome(col)})
		}
		out = append(out, entry)
	}
	title := "Feeds " + u.Name + " follows on tidings"
	if entries == PerPage {
		title += ", one entry per changed page"
	}
	return Write(w, title, u.Name, time.Now(), out)
}
