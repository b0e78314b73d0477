package sitecheck

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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

// oneVerdict leaves out of tried what it says of a document that found
// says gave change information: a plain sitemap is where its collection
// is read from, and not also "not a ResourceSync document" a line below.
func oneVerdict(tried, found []string) []string {
	var docs []string
	for _, f := range found {
		if u, _, ok := strings.Cut(f, " "); ok {
			docs = append(docs, u+" ")
		}
	}
	return slices.DeleteFunc(tried, func(t string) bool {
		return slices.ContainsFunc(docs, func(d string) bool { return strings.HasPrefix(t, d) })
	})
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
	// Documents counts what the collection's harvest fetched itself: one
	// that discovery read and passed on is in the list of documents
	// fetched, not here, so none is no news.
	var parts []string
	if c.Documents > 0 {
		parts = append(parts, count(c.Documents, "document", "documents")+" read")
	}
	switch {
	case c.PagesFrom != "":
		parts = append(parts, count(c.Pages, "page", "pages")+" listed in its resource list")
	case c.Pages > 0:
		parts = append(parts, count(c.Pages, "page", "pages"))
	}
	span := spanText(window)
	switch {
	case c.Changes == 0:
		parts = append(parts, "no change yet, so its feed starts with the next change")
	case c.InFeed == c.Changes:
		parts = append(parts, fmt.Sprintf("%s, which following it now puts in its feed", count(c.Changes, "change", "changes")))
	case c.InFeed == 0:
		parts = append(parts, fmt.Sprintf("%s, all older than %s: following it now keeps them as already seen, and its feed starts with the next change",
			count(c.Changes, "change", "changes"), span))
	default:
		parts = append(parts, fmt.Sprintf("%s, of which following it now puts the %d of the last %s in its feed and keeps the older ones as already seen",
			count(c.Changes, "change", "changes"), c.InFeed, span))
	}
	return capital(strings.Join(parts, "; ")) + "."
}

// capital starts a sentence with a capital letter: the sources phrase
// their findings and warnings to follow a colon or a dash, and the check
// shows each as a sentence of its own.
func capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
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
