package sitecheck

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"tidings/harvest"
	"tidings/source"
)

// found says what each document that gave change information is, in
// the order read: the documents the sources described as they read them,
// then the sources of the other collections.
func found(log *checkLog, cols []Collection) []string {
	log.mu.Lock()
	docs := slices.Clone(log.docs)
	log.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, d := range docs {
		out = append(out, d.URL+" is "+d.What)
		seen[d.URL] = true
	}
	for _, c := range cols {
		if !seen[c.Source] {
			seen[c.Source] = true
			out = append(out, fmt.Sprintf("%s is where the collection %s is read from (%s)", c.Source, c.Title, source.Describe(c.Protocol, c.Pages)))
		}
	}
	return out
}

// pageList returns the document that lists the pages of the collection
// read from u (a capability list's resource list), when it was read.
func (l *checkLog) pageList(u string) (harvest.Document, bool) {
	d, ok := l.doc(u)
	if !ok || d.PageList == "" {
		return harvest.Document{}, false
	}
	list, ok := l.doc(d.PageList)
	return list, ok && list.Lists
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
