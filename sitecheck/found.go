package sitecheck

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"tidings/fetch"
	"tidings/rsync"
	"tidings/source"
)

// found says what each document that gave change information is, in
// the order read: the ResourceSync documents parsed, the resource lists
// the check counted, and the sources of the other collections.
func found(log *checkLog, cols []Collection) []string {
	log.mu.Lock()
	docs := append([]checkedDoc(nil), log.docs...)
	log.mu.Unlock()
	var out []string
	seen := map[string]int{} // the line of each document said, plus one
	for _, d := range docs {
		out = append(out, d.url+" is "+docKind(d))
		seen[d.url] = len(out)
	}
	for _, c := range cols {
		if c.PagesFrom != "" {
			line := fmt.Sprintf("%s is a resource list of %s", c.PagesFrom, count(c.Pages, "page", "pages"))
			if i := seen[c.PagesFrom]; i > 0 {
				// Parsed by the harvest too: the count says more.
				out[i-1] = line
			} else {
				out = append(out, line)
				seen[c.PagesFrom] = len(out)
			}
		}
		if seen[c.Source] == 0 {
			seen[c.Source] = len(out) + 1
			out = append(out, fmt.Sprintf("%s is where the collection %s is read from (%s)", c.Source, c.Title, source.Describe(c.Protocol, c.Pages)))
		}
	}
	return out
}

// docKind names a ResourceSync document and what it points to.
func docKind(d checkedDoc) string {
	switch d.capability {
	case rsync.CapDescription:
		return "a ResourceSync Source Description naming " + count(len(d.lists), "capability list", "capability lists")
	case rsync.CapCapabilityList:
		var names []string
		for _, c := range d.lists {
			names = append(names, "a "+capabilityName(c))
		}
		if len(names) == 0 {
			return "a capability list naming nothing to harvest"
		}
		return "a capability list naming " + strings.Join(names, " and ")
	case rsync.CapChangeList:
		return "a change list"
	}
	return "a ResourceSync " + capabilityName(d.capability)
}

// resourceListOf returns the resource list the capability list at u
// names, or "" when it names none or was not read.
func (l *checkLog) resourceListOf(u string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.docs {
		if d.url == u {
			return d.resourceList
		}
	}
	return ""
}

// listedPages counts the pages of a resource list. A harvest that has a
// change list to read does not read the resource list beside it, so,
// until the site publishes its first change, the check would otherwise
// say the collection has no pages.
func (c *collector) listedPages(ctx context.Context, u string) (int, bool) {
	resp, err := c.client.Get(ctx, u, fetch.Conditional{})
	if err != nil || resp.NotModified {
		return 0, false
	}
	n := 0
	doc, err := rsync.ParseEach(bytes.NewReader(resp.Body), resp.URL, func(*rsync.Entry) { n++ })
	if err != nil || doc.Capability != rsync.CapResourceList || doc.IsIndex() {
		return 0, false
	}
	return n, true
}

// collectionOutcome says what a collection's check read, what it holds,
// and what following it now puts in its feed.
func collectionOutcome(c Collection, window time.Duration) string {
	if c.Error != "" {
		return "Cannot be harvested: " + strings.TrimSuffix(c.Error, ".") + "."
	}
	s := count(c.Documents, "document", "documents") + " read"
	switch {
	case c.PagesFrom != "":
		s += fmt.Sprintf("; %s listed in its resource list", count(c.Pages, "page", "pages"))
	case c.Pages > 0:
		s += "; " + count(c.Pages, "page", "pages")
	}
	span := spanText(window)
	switch {
	case c.Changes == 0:
		s += "; no change yet, so its feed starts with the next change"
	case c.InFeed == c.Changes:
		s += fmt.Sprintf("; %s, which following it now puts in its feed", count(c.Changes, "change", "changes"))
	case c.InFeed == 0:
		s += fmt.Sprintf("; %s, all older than %s: following it now keeps them as already seen, and its feed starts with the next change",
			count(c.Changes, "change", "changes"), span)
	default:
		s += fmt.Sprintf("; %s, of which following it now puts the %d of the last %s in its feed and keeps the older ones as already seen",
			count(c.Changes, "change", "changes"), c.InFeed, span)
	}
	return s + "."
}

// count says "1 page", "3 pages".
func count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

// spanText writes a duration for people: "30 days", or as Go writes it.
func spanText(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == day:
		return "day"
	case d > 0 && d%day == 0:
		return fmt.Sprintf("%d days", d/day)
	}
	return d.String()
}
