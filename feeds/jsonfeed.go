package feeds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	gorilla "github.com/gorilla/feeds"
)

const jsonFeedVersion = "https://jsonfeed.org/version/1.1"

// jsonFeed replaces gorilla.JSONFeed: gorilla writes no feed_url, no
// language and no next_url, drops items when there are none (items is
// required), and writes times with their zone and sub-second digits.
type jsonFeed struct {
	Version     string        `json:"version"`
	Title       string        `json:"title"`
	HomePageURL string        `json:"home_page_url,omitempty"`
	FeedURL     string        `json:"feed_url,omitempty"`
	Description string        `json:"description,omitempty"`
	NextURL     string        `json:"next_url,omitempty"`
	Authors     []*jsonAuthor `json:"authors,omitempty"`
	Language    string        `json:"language,omitempty"`
	Hubs        []jsonHub     `json:"hubs,omitempty"`
	Items       []*jsonItem   `json:"items"`
}

type jsonAuthor struct {
	Name string `json:"name"`
}

type jsonHub struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type jsonItem struct {
	ID            string `json:"id"`
	URL           string `json:"url,omitempty"`
	Title         string `json:"title"`
	ContentHTML   string `json:"content_html"`
	ContentText   string `json:"content_text,omitempty"` // for readers that show no HTML
	Summary       string `json:"summary,omitempty"`
	DatePublished string `json:"date_published,omitempty"`
	DateModified  string `json:"date_modified"`
	// Author is JSON Feed 1.0's; 1.1 readers use Authors.
	Author   *jsonAuthor   `json:"author,omitempty"`
	Authors  []*jsonAuthor `json:"authors,omitempty"`
	Tags     []string      `json:"tags,omitempty"`
	Language string        `json:"language,omitempty"`
}

// WriteJSON writes f as a JSON Feed 1.1 document to w, with the same
// cleaning as WriteAtom. Nothing is written when an error is returned.
func WriteJSON(w io.Writer, f *Feed) error {
	c, err := prepare(f)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(buildJSON(c)); err != nil {
		return fmt.Errorf("feeds: encode json feed %q: %w", c.ID, err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("feeds: write json feed %q: %w", c.ID, err)
	}
	return nil
}

func buildJSON(c *clean) *jsonFeed {
	built := (&gorilla.JSON{Feed: c.g}).JSONFeed()
	doc := &jsonFeed{
		Version:     jsonFeedVersion,
		Title:       built.Title,
		HomePageURL: built.HomePageUrl,
		FeedURL:     c.SelfURL,
		Description: built.Description,
		NextURL:     c.NextURL,
		Authors:     []*jsonAuthor{{Name: c.Author}},
		Language:    c.Language,
		Items:       []*jsonItem{},
	}
	if hub := c.hub(); hub != "" {
		doc.Hubs = []jsonHub{{Type: "WebSub", URL: hub}}
	}
	for i, it := range built.Items {
		doc.Items = append(doc.Items, fixJSONItem(it, &c.Entries[i], c.Language))
	}
	return doc
}

func fixJSONItem(built *gorilla.JSONItem, e *Entry, feedLang string) *jsonItem {
	out := &jsonItem{
		ID:           built.Id,
		URL:          built.Url,
		Title:        built.Title,
		ContentHTML:  e.ContentHTML,
		ContentText:  plainText(e.ContentHTML),
		Summary:      e.Summary,
		DateModified: atomTime(e.Updated),
		Tags:         e.Categories,
	}
	// Readers sort by date_published; without one an entry has no date.
	out.DatePublished = out.DateModified
	if !e.Published.IsZero() {
		out.DatePublished = atomTime(e.Published)
	}
	if e.Author != "" {
		out.Author = &jsonAuthor{Name: e.Author}
		out.Authors = []*jsonAuthor{out.Author}
	}
	if e.Language != feedLang {
		out.Language = e.Language
	}
	return out
}
