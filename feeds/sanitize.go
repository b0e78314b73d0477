package feeds

import (
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
)

// contentPolicy is what entry content may hold: the little markup tidings
// writes itself (lists, paragraphs, links, times, quotes, and the <ins> and
// <del> of a page's text diff, coloured inline for readers without a
// stylesheet of ours). Scripts, styles other than those colours, event
// handlers, attributes other than those below, and links to schemes other
// than http and https are removed. A Policy is safe for concurrent use once
// built.
var contentPolicy = newContentPolicy()

var langPattern = regexp.MustCompile(`^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`)

// hexColour is the one form of colour content may name.
var hexColour = regexp.MustCompile(`^#[0-9a-f]{6}$`)

func newContentPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("ul", "ol", "li", "p", "br", "q", "em", "strong", "code", "span", "time", "ins", "del")
	p.AllowURLSchemes("http", "https")
	p.RequireParseableURLs(true)
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("datetime").OnElements("time")
	p.AllowAttrs("lang").Matching(langPattern).OnElements("li", "p", "q", "span")
	p.AllowStyles("color", "background-color").Matching(hexColour).OnElements("ins", "del")
	return p
}

// sanitizeHTML returns s with only what contentPolicy allows, as XML-safe
// text.
func sanitizeHTML(s string) string {
	if s == "" {
		return ""
	}
	return CleanText(contentPolicy.Sanitize(CleanText(s)))
}

// cleanLanguage returns tag when it is a well-formed BCP 47 language tag
// (as far as its shape goes), else "": a site's language is written into
// attributes that readers act on.
func cleanLanguage(tag string) string {
	tag = strings.TrimSpace(tag)
	if len(tag) > 35 || !langPattern.MatchString(tag) {
		return ""
	}
	return tag
}

// maxCategories bounds the categories of one entry.
const maxCategories = 20

// cleanCategories trims categories and drops blank and repeated ones,
// keeping at most maxCategories.
func cleanCategories(in []string) []string {
	var out []string
	for _, c := range in {
		c = strings.Join(strings.Fields(CleanText(c)), " ")
		if c != "" {
			out = append(out, c)
		}
	}
	out = dedupe(out)
	if len(out) > maxCategories {
		out = out[:maxCategories]
	}
	return out
}
