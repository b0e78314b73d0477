package publish

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
)

// FeedLink is the line that lets readers find the collection's change
// feed from a page: a <link rel="alternate"> for the page's <head>.
func (c CollectionResult) FeedLink() string {
	return feedLinkLine(c.FeedTitle, c.Feed)
}

func feedLinkLine(title, href string) string {
	return fmt.Sprintf(`<link rel="alternate" type="application/atom+xml" title="%s" href="%s">`, html.EscapeString(title), html.EscapeString(href))
}

// linkFeeds inserts, before the pages are read, the feed's link into each
// collection's index page that has none, just before its </head>: the
// page then changes, as the author asked, and this run publishes the
// change. It returns the collections whose page links the feed, now or
// already; a page without a </head> is left as it is, with a warning.
func linkFeeds(o *Options) (linked map[string]bool, inserted bool, warnings []string, err error) {
	linked = map[string]bool{}
	for _, rel := range o.Collections {
		index := "index.html"
		if rel != "" {
			index = rel + "/index.html"
		}
		if err = noLinks(o.Dir, index); err != nil {
			return nil, false, nil, err
		}
		name := filepath.Join(o.Dir, filepath.FromSlash(index))
		fi, err := os.Stat(name)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := readCapped(name)
		if err != nil {
			return nil, false, nil, err
		}
		l := newLayout(o, rel)
		href := l.docURL(feedAtomName)
		if bytes.Contains(data, []byte(html.EscapeString(href))) {
			linked[rel] = true
			continue
		}
		end := bytes.Index(bytes.ToLower(data), []byte("</head>"))
		if end < 0 {
			warnings = append(warnings, fmt.Sprintf("%s has no </head>: its change feed's link was not inserted; paste the line printed below into it", index))
			continue
		}
		pt := extractText(data, index, l.describes(), "")
		line := feedLinkLine(feedTitle(pt.Title, l.describes()), href)
		out := make([]byte, 0, len(data)+len(line)+1)
		out = append(out, data[:end]...)
		out = append(out, line...)
		out = append(out, '\n')
		out = append(out, data[end:]...)
		if err := replaceFile(name, out, fi.Mode().Perm()); err != nil {
			return nil, false, nil, err
		}
		linked[rel], inserted = true, true
	}
	return linked, inserted, warnings, nil
}
