package sitecheck

import (
	"context"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"

	"tidings/feedbuild"
	"tidings/feeds"
	"tidings/pagetext"
)

// maxPreviewSummary bounds the text of one preview entry, in bytes.
const maxPreviewSummary = 400

// preview builds the newest entries of a collection's feed, one per
// change, from the throwaway store, as feedbuild builds them for readers.
func (c *collector) preview(ctx context.Context, collectionID int64, n int) ([]PreviewEntry, error) {
	if n <= 0 {
		n = DefaultPreviewEntries
	}
	// The entries link to the site's pages; ids and feed links, which
	// name this tidings, are not shown.
	b, err := feedbuild.New(c.store, feedbuild.Options{BaseURL: "http://tidings.invalid/", FeedEntries: n})
	if err != nil {
		return nil, err
	}
	spec, err := b.CollectionSpec(ctx, collectionID)
	if err != nil {
		return nil, err
	}
	stamp, err := c.store.Stamp(ctx, spec.Scope)
	if err != nil {
		return nil, err
	}
	f, err := b.Build(ctx, spec, feeds.Atom, feedbuild.Page{PerPage: true}, stamp)
	if err != nil {
		return nil, err
	}
	var out []PreviewEntry
	for _, e := range f.Entries {
		sum := e.Summary
		if sum == "" {
			sum = htmlText(e.ContentHTML)
		}
		out = append(out, PreviewEntry{Title: e.Title, Link: e.Link, Updated: e.Updated, Summary: pagetext.Clip(sum, maxPreviewSummary)})
	}
	return out, nil
}

var blockTags = map[string]bool{"p": true, "div": true, "br": true, "li": true, "ul": true, "ol": true,
	"blockquote": true, "pre": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "tr": true, "td": true}

// htmlText is the text of an entry's HTML content, white space collapsed.
func htmlText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	for b.Len() < 4*maxPreviewSummary {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			// Blocks separate words that the markup alone kept apart.
			if name, _ := z.TagName(); blockTags[string(name)] {
				b.WriteByte(' ')
			}
		}
	}
	return strings.ToValidUTF8(strings.Join(strings.Fields(b.String()), " "), string(utf8.RuneError))
}
