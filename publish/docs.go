package publish

import (
	"slices"
	"strconv"
	"time"

	"github.com/beevik/etree"

	"tidings/rsync"
)

// w3c writes a datetime as the W3C profile ResourceSync uses, in UTC to
// the second.
func w3c(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// newDoc begins a sitemap document (root "urlset" or "sitemapindex") with
// both namespaces bound once, on the root.
func newDoc(root string) (*etree.Document, *etree.Element) {
	doc := etree.NewDocument()
	doc.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	el := doc.CreateElement(root)
	el.CreateAttr("xmlns", rsync.NSSitemap)
	el.CreateAttr("xmlns:rs", rsync.NSResourceSync)
	return doc, el
}

func link(parent *etree.Element, rel, href string) {
	ln := parent.CreateElement("rs:ln")
	ln.CreateAttr("rel", rel)
	ln.CreateAttr("href", href)
}

// md adds an rs:md with the attributes given as name, value pairs; an
// empty value is left out.
func md(parent *etree.Element, attrs ...string) {
	el := parent.CreateElement("rs:md")
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] != "" {
			el.CreateAttr(attrs[i], attrs[i+1])
		}
	}
}

func loc(parent *etree.Element, tag, u string) *etree.Element {
	el := parent.CreateElement(tag)
	el.CreateElement("loc").SetText(u)
	return el
}

func render(doc *etree.Document) []byte {
	doc.Indent(2)
	b, err := doc.WriteToBytes()
	if err != nil {
		// Writing to memory fails only on a bug in the tree built here.
		panic("publish: write XML: " + err.Error())
	}
	return b
}

// describedCollection is one collection as the Source Description names
// it.
type describedCollection struct {
	capabilityList string
	describes      string
	describedBy    string // "" when the collection has no index page
}

// sourceDescriptionXML is the document at /.well-known/resourcesync.
func sourceDescriptionXML(describedBy string, cols []describedCollection) []byte {
	doc, root := newDoc("urlset")
	if describedBy != "" {
		link(root, "describedby", describedBy)
	}
	md(root, "capability", rsync.CapDescription)
	for _, c := range cols {
		u := loc(root, "url", c.capabilityList)
		md(u, "capability", rsync.CapCapabilityList)
		link(u, "describes", c.describes)
		if c.describedBy != "" {
			link(u, "describedby", c.describedBy)
		}
	}
	return render(doc)
}

// capabilityListXML names the collection's resource list and its change
// list (or change list index).
func capabilityListXML(up string, c describedCollection, resourceList, changeList string) []byte {
	doc, root := newDoc("urlset")
	link(root, "up", up)
	link(root, "describes", c.describes)
	if c.describedBy != "" {
		link(root, "describedby", c.describedBy)
	}
	md(root, "capability", rsync.CapCapabilityList)
	md(loc(root, "url", resourceList), "capability", rsync.CapResourceList)
	md(loc(root, "url", changeList), "capability", rsync.CapChangeList)
	return render(doc)
}

// resourceListXML lists every page with its lastmod, hash and length.
func resourceListXML(up string, at time.Time, rs []resource) []byte {
	doc, root := newDoc("urlset")
	link(root, "up", up)
	md(root, "capability", rsync.CapResourceList, "at", w3c(at))
	for _, r := range rs {
		u := loc(root, "url", r.url)
		if !r.lastmod.IsZero() {
			u.CreateElement("lastmod").SetText(w3c(r.lastmod))
		}
		md(u, "hash", r.hash, "length", strconv.FormatInt(r.length, 10))
	}
	return render(doc)
}

// changeListXML is one change list; until is zero for the open one.
func changeListXML(up string, from, until time.Time, es []entry) []byte {
	doc, root := newDoc("urlset")
	// Bound only where a note is written: a list without one stays as
	// every ResourceSync reader expects it, byte for byte.
	if slices.ContainsFunc(es, func(e entry) bool { return e.note != "" }) {
		root.CreateAttr("xmlns:"+notePrefix, rsync.NSNote)
	}
	link(root, "up", up)
	untilText := ""
	if !until.IsZero() {
		untilText = w3c(until)
	}
	md(root, "capability", rsync.CapChangeList, "from", w3c(from), "until", untilText)
	for _, e := range es {
		u := loc(root, "url", e.url)
		length := ""
		if e.kind != rsync.ChangeDeleted {
			u.CreateElement("lastmod").SetText(w3c(e.at))
			if e.hash != "" {
				length = strconv.FormatInt(e.length, 10)
			}
		}
		md(u, "change", e.kind, "datetime", w3c(e.at), "hash", e.hash, "length", length, notePrefix+":note", e.note)
	}
	return render(doc)
}

// indexEntry is one change list of a change list index.
type indexEntry struct {
	url         string
	from, until time.Time // until zero for the open list
}

// changeListIndexXML lists the archived change lists and the open one.
func changeListIndexXML(up string, from time.Time, lists []indexEntry) []byte {
	doc, root := newDoc("sitemapindex")
	link(root, "up", up)
	md(root, "capability", rsync.CapChangeList, "from", w3c(from))
	for _, l := range lists {
		s := loc(root, "sitemap", l.url)
		untilText := ""
		if !l.until.IsZero() {
			untilText = w3c(l.until)
		}
		md(s, "capability", rsync.CapChangeList, "from", w3c(l.from), "until", untilText)
	}
	return render(doc)
}
