package main

import (
	"bytes"
	"fmt"
	"html"
	"math/rand/v2"
	"slices"
	"strings"
)

// pageBody renders page x of site i at version v, as a static
// site generator would: the same header, navigation and "© YEAR" footer
// on every page around the page's own content. Links are same-origin and
// written three ways (root-relative, relative, absolute in the canonical
// link), as generated sites mix them. The same site, page and version
// always give the same bytes; a revision rewrites revisedParas
// paragraphs of an article and nothing else.
func (ps *plainSite) pageBody(seed int64, i, x, v int, base string, year int) []byte {
	p := ps.pages[x]
	r := rand.New(rand.NewPCG(uint64(seed), uint64(i)<<32|uint64(x)|5<<60))
	var b bytes.Buffer
	b.Grow(10 << 10)
	title := html.EscapeString(p.title)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"+
		"<title>%s - %s</title>\n<link rel=\"canonical\" href=\"%s%s\">\n<link rel=\"stylesheet\" href=\"%sassets/site.css\">\n</head>\n<body>\n",
		title, ps.name, base, p.path, ps.scope)
	fmt.Fprintf(&b, "<header class=\"site-header\"><a class=\"brand\" href=\"%s\">%s</a>\n<nav class=\"main-nav\"><ul>\n", ps.scope, ps.name)
	for _, s := range ps.sections {
		fmt.Fprintf(&b, "<li><a href=\"%s%s/\">%s</a></li>\n", ps.scope, s, capitalize(s))
	}
	fmt.Fprintf(&b, "<li><a href=\"%sabout/\">About</a></li>\n</ul></nav></header>\n", ps.scope)
	if ps.variant.fullNav {
		// MkDocs' sidebar names every page of the site, on every page.
		b.WriteString("<nav class=\"md-nav\" aria-label=\"Pages\"><ul>\n")
		for y := range ps.pages {
			fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", ps.pages[y].path, html.EscapeString(ps.pages[y].title))
		}
		b.WriteString("</ul></nav>\n")
	}
	b.WriteString("<main id=\"content\">\n")
	if p.role != roleHome {
		fmt.Fprintf(&b, "<nav class=\"breadcrumb\"><a href=\"%s\">Home</a>", ps.scope)
		if p.role == roleArticle || p.role == roleListing {
			s := ps.sections[p.section]
			fmt.Fprintf(&b, " › <a href=\"%s%s/\">%s</a>", ps.scope, s, capitalize(s))
		}
		b.WriteString("</nav>\n")
	}
	fmt.Fprintf(&b, "<h1>%s</h1>\n", title)
	switch p.role {
	case roleHome:
		ps.writeProse(&b, r, 2, 0)
		b.WriteString("<h2>Sections</h2>\n<ul class=\"sections\">\n")
		for _, s := range ps.sections {
			fmt.Fprintf(&b, "<li><a href=\"%s%s/\">%s</a></li>\n", ps.scope, s, capitalize(s))
		}
		b.WriteString("</ul>\n<h2>Recent</h2>\n")
		arts := ps.articles()
		ps.writeList(&b, arts[max(len(arts)-5, 0):])
	case roleSection, roleListing:
		ps.writeProse(&b, r, 1, 0)
		ps.writeListing(&b, p)
	case roleAbout:
		ps.writeProse(&b, r, 4, 0)
	case roleArticle:
		ps.writeProse(&b, r, 8+r.IntN(7), v)
		ps.writeArticleLinks(&b, r, x)
	}
	contact := ""
	if _, ok := ps.byPath[ps.scope+"contact/"]; ok {
		contact = fmt.Sprintf(" · <a href=\"%scontact/\">Contact</a>", ps.scope)
	}
	fmt.Fprintf(&b, "</main>\n<footer class=\"site-footer\"><p>© %d %s. <a href=\"%sabout/\">About</a>%s · <a href=\"mailto:editor@example.org\">Write to us</a> · <a href=\"#content\">Back to top</a></p>\n"+
		"<p class=\"generator\">Made with a static site generator.</p></footer>\n</body>\n</html>\n", year, ps.name, ps.scope, contact)
	return b.Bytes()
}

// writeProse writes n paragraphs, the ones version v rewrote drawn anew.
func (ps *plainSite) writeProse(b *bytes.Buffer, r *rand.Rand, n, v int) {
	for k := range n {
		// A generator per paragraph, so that a rewritten one leaves the
		// others as they were.
		seed := r.Uint64()
		if pv := paraVersionIn(k, v, n); pv > 0 {
			fmt.Fprintf(b, "<p>%s</p>\n", paragraph(rand.New(rand.NewPCG(seed, uint64(pv)))))
			continue
		}
		fmt.Fprintf(b, "<p>%s</p>\n", paragraph(rand.New(rand.NewPCG(seed, 0))))
	}
}

func (ps *plainSite) writeList(b *bytes.Buffer, idx []int) {
	b.WriteString("<ul class=\"articles\">\n")
	for _, x := range idx {
		fmt.Fprintf(b, "<li><a href=\"%s\">%s</a></li>\n", ps.pages[x].path, html.EscapeString(ps.pages[x].title))
	}
	b.WriteString("</ul>\n")
}

// writeListing writes a section index's or listing page's articles and
// the pagination, which names every listing page of the section.
func (ps *plainSite) writeListing(b *bytes.Buffer, p plainPage) {
	arts, listings := ps.section(p.section)
	from := 0
	if p.role == roleListing {
		from = (p.number - 1) * articlesPerListing
	}
	ps.writeList(b, arts[min(from, len(arts)):min(from+articlesPerListing, len(arts))])
	if len(listings) == 0 {
		return
	}
	fmt.Fprintf(b, "<nav class=\"pagination\"><a href=\"%s%s/\">1</a>", ps.scope, ps.sections[p.section])
	for _, l := range listings {
		fmt.Fprintf(b, " <a href=\"%s\">%d</a>", ps.pages[l].path, ps.pages[l].number)
	}
	b.WriteString("</nav>\n")
}

// writeArticleLinks writes an article's previous and next links, relative
// as generators write them, and a few related articles from anywhere on
// the site.
func (ps *plainSite) writeArticleLinks(b *bytes.Buffer, r *rand.Rand, x int) {
	p := ps.pages[x]
	arts, _ := ps.section(p.section)
	b.WriteString("<nav class=\"prev-next\">")
	rel := func(y int) string {
		return "../" + strings.TrimPrefix(ps.pages[y].path, ps.scope+ps.sections[p.section]+"/")
	}
	if p.number > 0 {
		fmt.Fprintf(b, "<a rel=\"prev\" href=\"%s\">%s</a> ", rel(arts[p.number-1]), html.EscapeString(ps.pages[arts[p.number-1]].title))
	}
	if p.number+1 < len(arts) {
		fmt.Fprintf(b, "<a rel=\"next\" href=\"%s\">%s</a>", rel(arts[p.number+1]), html.EscapeString(ps.pages[arts[p.number+1]].title))
	}
	b.WriteString("</nav>\n<h2>Related</h2>\n")
	all := ps.articles()
	related := make([]int, 3)
	for k := range related {
		related[k] = all[r.IntN(len(all))]
		if related[k] == x && len(all) > 1 {
			// Any other article: the page itself is no relation.
			related[k] = all[(slices.Index(all, x)+1+r.IntN(len(all)-1))%len(all)]
		}
	}
	ps.writeList(b, related)
}

// siteCSS is every plain site's style sheet, which its pages link to: a
// crawler that follows every link asks for it too.
const siteCSS = `body{font-family:system-ui,sans-serif;max-width:46rem;margin:0 auto;padding:0 1rem;color:#222}
.site-header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #ddd}
.main-nav ul{list-style:none;display:flex;gap:1rem;padding:0}.brand{font-weight:700;text-decoration:none}
.breadcrumb{font-size:.9rem;color:#666}.site-footer{border-top:1px solid #ddd;font-size:.85rem;color:#666}
`
