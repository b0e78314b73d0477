package feeds

import (
	"html"
	"strings"
)

// NoTextChangeHTML is the content that says a page changed while its
// readable text did not: a site asserted the change, and a reader would
// otherwise look for a difference that is not in the words.
const NoTextChangeHTML = "<p>No change to the text (markup, images or styles changed).</p>"

// PageHTML renders the content of a per-page entry: the page as
// DigestHTML lists it, then its summary as an escaped paragraph, then
// textHTML, which says what happened to the page's text (a rendered diff,
// NoTextChangeHTML, or "" when unknown) and is sanitized with the rest
// when the feed is written. A deleted page is not linked as if it were
// live, and is followed by the address it had when its title stands in
// for it. Blocks are on lines of their own, so that a reader that strips
// every tag still shows "Removed: …" at the start of a line.
func PageHTML(it DigestItem, summary, textHTML string) string {
	out := digestList([]DigestItem{it}, false)
	if gone(it.Kind) && strings.TrimSpace(CleanText(it.Title)) != "" {
		if u := strings.TrimSpace(CleanText(it.URL)); u != "" {
			out += "\n<p>It was at <code>" + html.EscapeString(u) + "</code>.</p>"
		}
	}
	if s := strings.TrimSpace(CleanText(summary)); s != "" {
		out += "\n<p"
		if lang := cleanLanguage(it.Language); lang != "" {
			out += ` lang="` + lang + `"`
		}
		out += ">" + html.EscapeString(s) + "</p>"
	}
	if textHTML != "" {
		out += "\n" + textHTML
	}
	return out
}

// PageTitle is the title of a per-page entry, such as "Updated: About me",
// naming the page by its title, else its URL.
func PageTitle(kind, title, url string) string {
	name := strings.TrimSpace(CleanText(title))
	if name == "" {
		name = strings.TrimSpace(CleanText(url))
	}
	word := kindWord(kind)
	return strings.ToUpper(word[:1]) + word[1:] + ": " + name
}
