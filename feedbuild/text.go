package feedbuild

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"tidings/db"
	"tidings/feeds"
	"tidings/pagetext"
)

// TextDiff reads the text diff stored with a change. ok is false when the
// text is not known to have changed: no snapshot, no diff, or a diff this
// version cannot read, which then shows as an entry or a page without one
// rather than failing the whole feed or page.
func TextDiff(ch db.Change) (d pagetext.Diff, ok bool) {
	if ch.TextChange != db.TextChanged || ch.Diff == "" {
		return d, false
	}
	if err := json.Unmarshal([]byte(ch.Diff), &d); err != nil || d.Unchanged() {
		return pagetext.Diff{}, false
	}
	return d, true
}

// textLine is how a digest sums up what a change did to its page's text,
// "" when unknown.
func textLine(ch db.Change) string {
	if ch.TextChange == db.TextUnchanged {
		return pagetext.NoTextChange
	}
	if d, ok := TextDiff(ch); ok {
		return d.Summary()
	}
	return ""
}

// Bounds of the diffs a feed document carries: some readers refuse a
// feed over 500 kB, and a change may keep a diff of 64 KiB (40 lines of
// it make up to some 100 KB of HTML once escaped). An entry shows what
// fits in entryDiffBytes of HTML, and links to the change's own page for
// the rest; the entries of a document show their diffs newest first
// while their cost (feedCost) comes to at most feedDiffCost, and past it
// only the diff's line of summary and the link. So the diffs of a
// document of 50 entries cost at most 250 kB in any format, and the rest
// of each entry (its title, address and summary, which quotes both the
// removed and the added lines) has 5 kB.
const (
	entryDiffBytes = 8 << 10
	feedDiffCost   = 250_000
)

// feedCost is what an entry's content s may take in a feed document, in
// the format that writes it largest: twice (RSS as the description and as
// content:encoded, JSON Feed as HTML and as text), each of <, > and &
// as a six-byte escape (JSON), a double quote as five bytes (XML).
func feedCost(s string) int {
	return 2 * (len(s) + 5*strings.Count(s, "<") + 5*strings.Count(s, ">") + 5*strings.Count(s, "&") + 5*strings.Count(s, `"`))
}

// changeText is what a per-page entry says of a change's text: full,
// its diff within entryDiffBytes, with a link to the change's page
// (changeURL) when lines are left out; brief, the diff in a line with the
// same link, for an entry past its document's feedDiffCost ("" when
// full is short already).
func changeText(ch db.Change, changeURL string) (full, brief string) {
	if ch.TextChange == db.TextUnchanged {
		return feeds.NoTextChangeHTML, ""
	}
	d, ok := TextDiff(ch)
	if !ok {
		return "", ""
	}
	full, whole := d.FeedHTMLWithin(entryDiffBytes)
	link := ""
	if !whole && changeURL != "" {
		link = wholeLink(d, changeURL)
		full += link
	}
	if link == "" {
		link = wholeLink(d, changeURL)
	}
	return full, "<p>" + html.EscapeString(d.Summary()) + "</p>\n" + link
}

// wholeLink leads to the page that shows every line a diff keeps.
func wholeLink(d pagetext.Diff, changeURL string) string {
	if changeURL == "" || d.Replaced != "" {
		return ""
	}
	return fmt.Sprintf("<p><a href=\"%s\">The whole change, %d changed %s</a></p>\n",
		html.EscapeString(changeURL), d.Added+d.Removed, plural(d.Added+d.Removed, "line", "lines"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// TextHTML is what a change did to its page's text, as a per-page entry
// shows it: in words as well as markup, within an entry's bound; "" when
// unknown. Notifications say it the same way.
func TextHTML(ch db.Change) string {
	full, _ := changeText(ch, "")
	return full
}
