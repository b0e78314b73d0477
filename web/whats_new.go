package web

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"time"
	"unicode/utf8"

	"tidings/db"
	"tidings/feedbuild"
)

// whatsNew is how many changed pages the dashboard lists: the rest are
// in the person's own feed, which it links to.
const whatsNew = 20

// newsItem is one changed page on the dashboard: what it is, on which
// site, when, and what its text did, in one line.
type newsItem struct {
	changeView
	Site, SitePage string
	// Quiet says why the change comes first: its site had been silent
	// for long ("First change in 4 months"); "" for the others.
	Quiet string
	// Gists say the change, a line each: what the diff removed and what
	// it added, labelled, else its one line, else the summary the site
	// gave; none when the page's text did not change, or is unknown.
	Gists []string
}

// maxGist bounds a line of a news item's gist, in bytes: a phone shows
// one line of each.
const maxGist = 160

// news is the pages changed across everything a person follows, newest
// first; sites are the person's, whose collections name where each
// change is.
func (s *Server) news(ctx context.Context, userID int64, sites []siteView) ([]newsItem, error) {
	changes, err := s.store.FeedChanges(ctx, db.Scope{UserID: userID}, whatsNew)
	if err != nil {
		return nil, err
	}
	where := map[int64]siteView{}
	for _, v := range sites {
		for _, c := range v.Collections {
			where[c.Collection.ID] = v
		}
	}
	out := make([]newsItem, 0, len(changes))
	for _, ch := range changes {
		// n = openDiffs: the dashboard shows no diff, only its line.
		it := newsItem{changeView: newChangeView(ch, "", openDiffs)}
		if v, ok := where[ch.CollectionID]; ok {
			it.Site, it.SitePage = siteName(v.Site), v.PageURL
			if ch.Title == "" {
				// The site is named beside it: its path is enough, and
				// fits a phone's line.
				it.Name = pathOn(ch.URL, v.Site.URL)
			}
		}
		if d, ok := feedbuild.TextDiff(ch); ok {
			rem, add := d.Sides()
			for _, g := range []string{rem, add} {
				if g != "" {
					it.Gists = append(it.Gists, clip(g, maxGist))
				}
			}
		}
		if len(it.Gists) == 0 {
			if g := cmp.Or(it.Line, ch.Summary); g != "" {
				it.Gists = []string{clip(g, maxGist)}
			}
		}
		out = append(out, it)
	}
	if err := s.quietFirst(ctx, out, changes, where); err != nil {
		return nil, err
	}
	return out, nil
}

// quietFirst says which of the news come from a site silent for long
// (feedbuild.QuietAfter), and puts those of the last quietPinned first,
// newest first among them:
// a site that changes once in months says more when it does than one
// that changes daily. One lookup a site, for its oldest change listed;
// the others' previous change is the next older one listed.
func (s *Server) quietFirst(ctx context.Context, items []newsItem, changes []db.Change, where map[int64]siteView) error {
	oldest := map[int64]int{} // site → index of its oldest change listed
	for i, ch := range changes {
		if v, ok := where[ch.CollectionID]; ok {
			oldest[v.Site.ID] = i
		}
	}
	var asks []db.QuietAsk
	for site, i := range oldest {
		asks = append(asks, db.QuietAsk{SiteID: site, Before: changes[i].Datetime})
	}
	last, err := s.store.ChangedBefore(ctx, asks)
	if err != nil {
		return err
	}
	older := map[int64]time.Time{} // site → its change listed just before
	for i := len(changes) - 1; i >= 0; i-- {
		v, ok := where[changes[i].CollectionID]
		if !ok {
			continue
		}
		site, at := v.Site.ID, changes[i].Datetime
		if prev, ok := older[site]; ok {
			items[i].Quiet = feedbuild.QuietReason(at, prev, true, v.Site.CreatedAt)
		} else {
			prev, ok := last[site]
			items[i].Quiet = feedbuild.QuietReason(at, prev, ok, v.Site.CreatedAt)
		}
		older[site] = at
	}
	// Pinned while it is news: older, it says why in its place.
	now := time.Now()
	first := func(it newsItem) bool { return it.Quiet != "" && now.Sub(it.Datetime) < quietPinned }
	slices.SortStableFunc(items, func(a, b newsItem) int {
		switch {
		case first(a) && !first(b):
			return -1
		case first(b) && !first(a):
			return 1
		}
		return 0
	})
	return nil
}

// quietPinned is how long a quiet site's change heads what's new.
const quietPinned = 7 * 24 * time.Hour

// pathOn is u without its scheme and host when it is on the site at
// root, else u.
func pathOn(u, root string) string {
	p, err := url.Parse(u)
	r, err2 := url.Parse(root)
	if err != nil || err2 != nil || p.Host != r.Host || p.Scheme != r.Scheme {
		return u
	}
	out := &url.URL{Path: p.Path, RawPath: p.RawPath, RawQuery: p.RawQuery}
	if s := out.String(); s != "" {
		return s
	}
	return "/"
}

// clip cuts s to at most n bytes, at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
