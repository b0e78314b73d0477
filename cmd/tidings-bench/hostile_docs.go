package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// The documents of scenario 7's hostile sites. Each is written as it is
// generated, through a small buffer, so that a 45 MB URL or a 31 MB
// sitemap never exists whole in the harness: what is measured is tidings'
// memory, and the harness runs beside it.

const (
	rsOpen  = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` + "\n"
	rsClose = "</urlset>\n"
)

// writePad writes n bytes of padding.
func writePad(w io.Writer, n int64) error { return writeRepeated(w, "a", n) }

// writeRepeated writes unit n times, 64 KiB at a time, and stops at the
// first error: a reader that gives up must not leave the harness writing
// megabytes into a closed connection.
func writeRepeated(w io.Writer, unit string, n int64) error {
	chunk := strings.Repeat(unit, max(1, (64<<10)/len(unit)))
	per := int64(len(chunk) / len(unit))
	for n > 0 {
		k := min(n, per)
		if _, err := io.WriteString(w, chunk[:k*int64(len(unit))]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// writeSourceDescription writes a Source Description naming one capability
// list, base+"/cap.xml", for the collection base+"/".
func writeSourceDescription(w io.Writer, base string) error {
	_, err := fmt.Fprintf(w, rsOpen+`  <rs:md capability="description"/>
  <url>
    <loc>%s/cap.xml</loc>
    <rs:md capability="capabilitylist"/>
    <rs:ln rel="describes" href="%s/"/>
  </url>
`+rsClose, base, base)
	return err
}

// writeCapabilityList writes the capability list naming changeList, a
// change list or change list index.
func writeCapabilityList(w io.Writer, base, changeList string) error {
	_, err := fmt.Fprintf(w, rsOpen+`  <rs:ln rel="up" href="%s/.well-known/resourcesync"/>
  <rs:ln rel="describes" href="%s/"/>
  <rs:md capability="capabilitylist"/>
  <url>
    <loc>%s</loc>
    <rs:md capability="changelist"/>
  </url>
`+rsClose, base, base, changeList)
	return err
}

// changeListDoc is a change list of entries URLs, each urlBytes long
// (base+"/pages/" and padding), then, when longLoc > 0, one more whose
// URL is longLoc bytes. Every change is dated at, so that a first harvest
// keeps them all for the feed. name tells the lists of one index apart,
// so that no URL is in two lists.
type changeListDoc struct {
	base     string
	name     string
	entries  int
	urlBytes int64
	longLoc  int64
	at       time.Time
}

func (d changeListDoc) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	from := d.at.Add(-time.Hour).Format(time.RFC3339)
	fmt.Fprintf(bw, rsOpen+`  <rs:ln rel="up" href="%s/cap.xml"/>
  <rs:md capability="changelist" from="%s"/>
`, d.base, from)
	for i := range d.entries {
		if err := d.entry(bw, fmt.Sprintf("/pages/%s-%06d-", d.name, i), d.urlBytes); err != nil {
			return err
		}
	}
	if d.longLoc > 0 {
		if err := d.entry(bw, "/pages/"+d.name+"-long-", d.longLoc); err != nil {
			return err
		}
	}
	bw.WriteString(rsClose)
	return bw.Flush()
}

// entry writes one change whose URL is prefix padded to size bytes.
func (d changeListDoc) entry(w io.Writer, prefix string, size int64) error {
	u := d.base + prefix
	if _, err := io.WriteString(w, "  <url>\n    <loc>"+u); err != nil {
		return err
	}
	if err := writePad(w, size-int64(len(u))); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "</loc>\n    <rs:md change=\"updated\" datetime=\"%s\"/>\n  </url>\n", d.at.Format(time.RFC3339))
	return err
}

// writeChangeListIndex writes an index of lists change lists,
// base+"/changes-N.xml".
func writeChangeListIndex(w io.Writer, base string, lists int, at time.Time) error {
	bw := bufio.NewWriter(w)
	from := at.Add(-time.Hour).Format(time.RFC3339)
	fmt.Fprintf(bw, strings.ReplaceAll(rsOpen, "urlset", "sitemapindex")+`  <rs:ln rel="up" href="%s/cap.xml"/>
  <rs:md capability="changelist" from="%s"/>
`, base, from)
	for i := range lists {
		fmt.Fprintf(bw, "  <sitemap>\n    <loc>%s/changes-%d.xml</loc>\n    <rs:md capability=\"changelist\" from=\"%s\"/>\n  </sitemap>\n", base, i, from)
	}
	bw.WriteString("</sitemapindex>\n")
	return bw.Flush()
}

// arcDoc is an ARC sitemap (Appendix E) of two pages, valid but for one
// top-level key no reader knows, "x_padding", a list of single-digit
// items long enough that the document is at least size bytes: a reader
// that builds the whole document before looking at it holds millions of
// values it then throws away.
type arcDoc struct {
	site string // its origin, without a trailing slash
	size int64
	at   time.Time
}

func (d arcDoc) head() string {
	return fmt.Sprintf("arc_sitemap_version: \"2.1\"\nsite: %s\ngenerated_at: %s\n", d.site, d.at.Format(time.RFC3339))
}

// writeYAML writes the sitemap as YAML, its padding as a block list.
func (d arcDoc) writeYAML(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	head := d.head()
	var tail strings.Builder
	tail.WriteString("pages:\n")
	for _, p := range []string{"/", "/about"} {
		fmt.Fprintf(&tail, "  - url: %s%s\n    lastmod: %s\n    ai_indexable: true\n", d.site, p, d.at.Format(time.RFC3339))
	}
	bw.WriteString(head + "x_padding:\n")
	const item = "- 0\n"
	if err := writeRepeated(bw, item, items(d.size-int64(len(head)+len("x_padding:\n")+tail.Len()), len(item))); err != nil {
		return err
	}
	bw.WriteString(tail.String())
	return bw.Flush()
}

// writeJSON writes the sitemap as JSON, its padding as an array.
func (d arcDoc) writeJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	head := fmt.Sprintf(`{"arc_sitemap_version":"2.1","site":%q,"generated_at":%q,"x_padding":[0`, d.site, d.at.Format(time.RFC3339))
	var tail strings.Builder
	tail.WriteString(`],"pages":[`)
	for i, p := range []string{"/", "/about"} {
		if i > 0 {
			tail.WriteString(",")
		}
		fmt.Fprintf(&tail, `{"url":%q,"lastmod":%q,"ai_indexable":true}`, d.site+p, d.at.Format(time.RFC3339))
	}
	tail.WriteString("]}\n")
	bw.WriteString(head)
	const item = ",0"
	if err := writeRepeated(bw, item, items(d.size-int64(len(head)+tail.Len()), len(item))); err != nil {
		return err
	}
	bw.WriteString(tail.String())
	return bw.Flush()
}

// items is how many units of size bytes fill n bytes, rounded up.
func items(n int64, size int) int64 {
	if n <= 0 {
		return 0
	}
	return (n + int64(size) - 1) / int64(size)
}
