package feeds

import (
	"encoding/xml"
	"html"
	"io"
	"time"

	gorilla "github.com/gorilla/feeds"
)

const (
	contentNS = "http://purl.org/rss/1.0/modules/content/"
	dcNS      = "http://purl.org/dc/elements/1.1/"
)

// rssDoc replaces gorilla.RssFeedXml: gorilla declares no atom or dc
// namespace, so it cannot write rel="self", "hub" or paging links, nor an
// author that is not an e-mail address.
type rssDoc struct {
	XMLName   xml.Name   `xml:"rss"`
	Version   string     `xml:"version,attr"`
	ContentNS string     `xml:"xmlns:content,attr"`
	DCNS      string     `xml:"xmlns:dc,attr"`
	AtomNS    string     `xml:"xmlns:atom,attr"`
	Channel   rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title         string     `xml:"title"`
	Link          string     `xml:"link"`
	Description   string     `xml:"description"`
	Language      string     `xml:"language,omitempty"`
	LastBuildDate string     `xml:"lastBuildDate"`
	Generator     string     `xml:"generator"`
	Links         []rssLink  `xml:"atom:link"`
	Items         []*rssItem `xml:"item"`
}

// rssLink is an atom:link inside RSS, the usual home of rel="self" and
// rel="hub" there.
type rssLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr,omitempty"`
}

// rssItem replaces gorilla.RssItem: gorilla dates an item by its creation
// rather than its update, writes one category at most, and puts the author
// name in <author>, which RSS reserves for an e-mail address.
type rssItem struct {
	Title       string   `xml:"title"`
	Link        string   `xml:"link,omitempty"`
	Description string   `xml:"description"`
	Content     string   `xml:"content:encoded,omitempty"`
	Creator     string   `xml:"dc:creator,omitempty"`
	Language    string   `xml:"dc:language,omitempty"`
	Categories  []string `xml:"category"`
	GUID        rssGUID  `xml:"guid"`
	PubDate     string   `xml:"pubDate"`
}

type rssGUID struct {
	ID          string `xml:",chardata"`
	IsPermaLink string `xml:"isPermaLink,attr"`
}

// WriteRSS writes f as an RSS 2.0 document to w, with the same cleaning as
// WriteAtom. Entry ids become guids with isPermaLink="false"; the content,
// or else the summary (escaped), is the description, and the content is
// also in content:encoded. Nothing is written when an error is returned.
func WriteRSS(w io.Writer, f *Feed) error {
	c, err := prepare(f)
	if err != nil {
		return err
	}
	return writeXML(w, c.ID, "rss", buildRSS(c))
}

func buildRSS(c *clean) *rssDoc {
	built := (&gorilla.Rss{Feed: c.g}).RssFeed()
	ch := rssChannel{
		Title:         built.Title,
		Link:          firstOf(built.Link, c.SelfURL),
		Description:   firstOf(built.Description, built.Title),
		Language:      c.Language,
		LastBuildDate: c.Updated.Format(time.RFC1123Z),
		Generator:     DefaultAuthor,
	}
	if c.SelfURL != "" {
		ch.Links = append(ch.Links, rssLink{Href: c.SelfURL, Rel: "self", Type: rssMediaType})
	}
	if hub := c.hub(); hub != "" {
		ch.Links = append(ch.Links, rssLink{Href: hub, Rel: "hub"})
	}
	for _, l := range c.pagingLinks() {
		ch.Links = append(ch.Links, rssLink{Href: l[1], Rel: l[0], Type: rssMediaType})
	}
	for i, it := range built.Items {
		ch.Items = append(ch.Items, fixRSSItem(it, &c.Entries[i], c.Language))
	}
	return &rssDoc{Version: "2.0", ContentNS: contentNS, DCNS: dcNS, AtomNS: atomNS, Channel: ch}
}

func fixRSSItem(built *gorilla.RssItem, e *Entry, feedLang string) *rssItem {
	out := &rssItem{
		Title:      built.Title,
		Link:       built.Link,
		Content:    e.ContentHTML,
		Creator:    e.Author,
		Categories: e.Categories,
		GUID:       rssGUID{ID: e.ID, IsPermaLink: "false"},
		PubDate:    e.Updated.Format(time.RFC1123Z),
	}
	if e.Language != feedLang {
		out.Language = e.Language
	}
	// The description of an RSS item is HTML. Many readers show it alone,
	// so it is the content, which opens with the summary, whenever there
	// is content: a summary alone would not say what changed.
	out.Description = e.ContentHTML
	if out.Description == "" {
		out.Description = html.EscapeString(e.Summary)
	}
	return out
}
