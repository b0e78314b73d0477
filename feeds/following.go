package feeds

import (
	"fmt"
	"html"
	"strings"
)

// FollowingTitle is the title of the entry a collection's first harvest
// gives its feed, such as "Now following My Shrine: 37 pages".
func FollowingTitle(collection string, pages int) string {
	noun := "pages"
	if pages == 1 {
		noun = "page"
	}
	return fmt.Sprintf("Now following %s: %s %s", collectionName(collection), thousands(pages), noun)
}

// FollowingHTML is the content of that entry: what the feed will bring,
// then the newest changes known, whatever their age, as DigestHTML lists
// them, or a sentence when none is known.
func FollowingHTML(collection string, items []DigestItem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<p>tidings now follows %s. This feed gains an entry each time a harvest finds pages changed.</p>",
		html.EscapeString(collectionName(collection)))
	if len(items) == 0 {
		b.WriteString("<p>No change to its pages is known yet.</p>")
		return b.String()
	}
	b.WriteString("<p>The most recent changes:</p>")
	b.WriteString(DigestHTML(items))
	return b.String()
}
