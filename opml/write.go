package opml

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"tidings/feeds"
)

// dateLayout is RFC 822 with a four-digit year (RFC 1123), as OPML 2.0's
// examples write it; times are written in UTC.
const dateLayout = "Mon, 02 Jan 2006 15:04:05 GMT"

// Site groups one site's collection feeds. Write makes it a
// folder outline holding one subscription per feed.
type Site struct {
	Title   string // folder name; the HTMLURL, then "Untitled site", when empty
	HTMLURL string // used for feeds without their own HTMLURL
	Feeds   []Feed
}

// Feed is one collection feed of an Site.
type Feed struct {
	Title   string // the XMLURL when empty
	XMLURL  string // required, an absolute http or https address
	HTMLURL string // the site's HTMLURL when empty; only http and https are written
}

type opmlDoc struct {
	XMLName xml.Name `xml:"opml"`
	Version string   `xml:"version,attr"`
	Head    opmlHead `xml:"head"`
	Body    opmlBody `xml:"body"`
}

type opmlHead struct {
	Title       string `xml:"title"`
	DateCreated string `xml:"dateCreated,omitempty"`
	OwnerName   string `xml:"ownerName,omitempty"`
}

type opmlBody struct {
	Outlines []opmlOutline `xml:"outline"`
}

type opmlOutline struct {
	Type     string        `xml:"type,attr,omitempty"`
	Text     string        `xml:"text,attr"`
	Title    string        `xml:"title,attr,omitempty"`
	XMLURL   string        `xml:"xmlUrl,attr,omitempty"`
	HTMLURL  string        `xml:"htmlUrl,attr,omitempty"`
	Outlines []opmlOutline `xml:"outline"`
}

// Write writes an OPML 2.0 document to w: a head with title (feeds.DefaultAuthor
// when empty), dateCreated (created in UTC, left out when zero) and
// ownerName (left out when empty), then one folder outline per site holding
// one type="rss" outline per feed. Sites are written in the order given;
// a site without feeds is left out, as readers would import it as an empty
// folder. Text is stripped of characters XML 1.0 forbids and kept to one
// line. The same input always gives the same bytes. Nothing is written
// when an error is returned.
func Write(w io.Writer, title, owner string, created time.Time, sites []Site) error {
	doc, err := build(title, owner, created, sites)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("opml: encode: %w", err)
	}
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("opml: write: %w", err)
	}
	return nil
}

func build(title, owner string, created time.Time, sites []Site) (*opmlDoc, error) {
	doc := &opmlDoc{
		Version: "2.0",
		Head:    opmlHead{Title: cleanLine(title), OwnerName: cleanLine(owner)},
	}
	if doc.Head.Title == "" {
		doc.Head.Title = feeds.DefaultAuthor
	}
	if !created.IsZero() {
		doc.Head.DateCreated = created.UTC().Format(dateLayout)
	}
	for i := range sites {
		folder, err := siteOutline(&sites[i])
		if err != nil {
			return nil, err
		}
		if len(folder.Outlines) > 0 {
			doc.Body.Outlines = append(doc.Body.Outlines, folder)
		}
	}
	return doc, nil
}

// siteOutline builds a site's folder. The folder carries its name as text
// only, no title or htmlUrl: importers would take it for a subscription
// of its own, and an outline with more than text wants a type.
func siteOutline(s *Site) (opmlOutline, error) {
	siteURL := feeds.SafeURL(s.HTMLURL)
	name := cleanLine(s.Title)
	if name == "" {
		name = siteURL
	}
	if name == "" {
		name = "Untitled site"
	}
	folder := opmlOutline{Text: name}
	for i, f := range s.Feeds {
		xmlURL := feeds.SafeURL(f.XMLURL)
		if xmlURL == "" {
			return folder, fmt.Errorf("opml: site %q: feed %d: %q is not an http or https address", name, i+1, f.XMLURL)
		}
		htmlURL := feeds.SafeURL(f.HTMLURL)
		if htmlURL == "" {
			htmlURL = siteURL
		}
		text := cleanLine(f.Title)
		if text == "" {
			text = xmlURL
		}
		folder.Outlines = append(folder.Outlines, opmlOutline{
			Type: "rss", Text: text, Title: text, XMLURL: xmlURL, HTMLURL: htmlURL,
		})
	}
	return folder, nil
}

// cleanLine is feeds.CleanText with runs of white space, line breaks included,
// turned into single spaces and the ends trimmed.
func cleanLine(s string) string {
	return strings.Join(strings.Fields(feeds.CleanText(s)), " ")
}
