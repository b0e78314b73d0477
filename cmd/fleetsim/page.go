package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
)

// pageSize is about what a generated page weighs: the 20 KiB HTML page of
// issue 14's snapshot benchmark.
const pageSize = 20 << 10

// revisedParas is how many paragraphs one revision of a page rewrites,
// among its first paraSpan: a small edit to a long page, as most are.
const (
	revisedParas = 2
	paraSpan     = 20
)

// words is the vocabulary of the generated prose. Varied enough that a
// page's text does not compress to nothing, which would flatter the
// stored size.
var words = strings.Fields(`
the a of and to in is was for on with as by at from that this which it
be are were has have had not but or an their its they we our can will
would could may might should must also more most some any each every
other such only new first last long great little own old right big high
different small large next early young important few public bad same able
council river harbour library budget report school market bridge garden
station museum archive festival election hospital railway committee
survey parish county village street tower castle meadow orchard valley
mill farm ferry quay chapel theatre gallery college court hall lane road
season winter summer autumn spring morning evening weather harvest flood
storm drought record history letter journal notice minutes agenda motion
member mayor officer clerk resident visitor teacher student farmer keeper
opened closed announced approved rejected delayed restored repaired built
moved found lost reported recorded published reviewed discussed agreed
proposed expected planned visited crossed measured counted named described
quietly slowly early late again still nearly almost often rarely always
north south east west upper lower middle central local regional annual
monthly weekly daily several many hundred thousand dozen half quarter
`)

// pageKey is a page's place in a site: collection c, page p.
type pageKey struct{ c, p int }

// pageHTML renders page p of collection c of site i at version v (how many
// times its text was revised): a title, a nav, sections of headings and
// paragraphs of prose, a script, a style sheet and a footer, about
// pageSize bytes. The same arguments always give the same bytes; version
// v differs from v-1 in revisedParas paragraphs only.
func pageHTML(seed int64, i, c, p, v int, base string) []byte {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(i)<<32|uint64(c)<<24|uint64(p)))
	title := capitalize(phrase(r, 3+r.IntN(5)))
	var b bytes.Buffer
	b.Grow(pageSize + 2<<10)
	writeHead(&b, r, title, base, i, c, p)
	fmt.Fprintf(&b, "<body class=\"site-%d layout-article\">\n<header class=\"site-header\"><a class=\"logo\" href=\"%s/\">%s</a>\n"+
		"<nav class=\"primary-nav\" aria-label=\"Main\"><ul class=\"nav-list\">\n", i, base, capitalize(phrase(r, 2)))
	for k := range 12 {
		fmt.Fprintf(&b, "<li class=\"nav-item nav-item-%d\"><a class=\"nav-link\" href=\"%s/c%d/pages/%06d.html\" data-track=\"nav-%d\">%s</a></li>\n",
			k, base, c, (p+k+1)%1000, k, capitalize(phrase(r, 1+r.IntN(2))))
	}
	b.WriteString("</ul></nav></header>\n<div class=\"container\"><aside class=\"sidebar\" aria-label=\"Related\"><h3 class=\"sidebar-title\">Related</h3><ul class=\"related-list\">\n")
	for k := range 8 {
		fmt.Fprintf(&b, "<li class=\"related-item\"><a class=\"related-link\" href=\"%s/c%d/pages/%06d.html?ref=sidebar&amp;pos=%d\">%s</a></li>\n",
			base, c, (p+k*13+5)%1000, k, capitalize(phrase(r, 3+r.IntN(3))))
	}
	fmt.Fprintf(&b, "</ul></aside>\n<main id=\"content\" class=\"main-content\" role=\"main\">\n<article class=\"post post-%d\" itemscope itemtype=\"https://schema.org/Article\">\n"+
		"<h1 class=\"post-title\" itemprop=\"headline\">%s</h1>\n<div class=\"post-meta\"><time datetime=\"2026-01-01\">1 January 2026</time></div>\n", p, title)
	footer := fmt.Sprintf("</article>\n</main></div>\n<footer class=\"site-footer\"><div class=\"footer-inner\"><p class=\"footer-note\">Site %d, collection %d. Published by the %s.</p>"+
		"<ul class=\"footer-links\"><li><a href=\"%s/\">Home</a></li><li><a href=\"%s/contact.html\">Contact</a></li><li><a href=\"%s/privacy.html\">Privacy</a></li>"+
		"<li><a href=\"%s/accessibility.html\">Accessibility</a></li></ul></div></footer>\n%s</body>\n</html>\n",
		i, c, phrase(r, 3), base, base, base, base, pageScript)
	// The page's length is counted as at version 0, so that a revision
	// rewrites paragraphs without adding or dropping any.
	skew := 0
	for k := 0; b.Len()+skew+len(footer) < pageSize; {
		fmt.Fprintf(&b, "<section class=\"post-section\"><h2 class=\"section-title\" id=\"s%d\">%s</h2></section>\n", k, capitalize(phrase(r, 2+r.IntN(4))))
		for range 3 + r.IntN(3) {
			if b.Len()+skew+len(footer) >= pageSize {
				break
			}
			// Each paragraph draws from a generator of its own, so that
			// rewriting one leaves the others as they were.
			ps := r.Uint64()
			text := paragraph(rand.New(rand.NewPCG(ps, 0)))
			if pv := paraVersion(k, v); pv > 0 {
				revised := paragraph(rand.New(rand.NewPCG(ps, uint64(pv))))
				skew += len(text) - len(revised)
				text = revised
			}
			fmt.Fprintf(&b, "<div class=\"block block-text\" data-block=\"%d\"><p class=\"body-text\">%s</p></div>\n", k, text)
			k++
		}
	}
	b.WriteString(footer)
	return b.Bytes()
}

// paraVersion is the latest of versions 1..v that rewrote paragraph k, or
// 0. Version u rewrites paragraphs u×7 and u×7+3, modulo paraSpan.
func paraVersion(k, v int) int { return paraVersionIn(k, v, paraSpan) }

// paraVersionIn is paraVersion for a page of span paragraphs, so that
// every revision of a short page rewrites paragraphs it has.
func paraVersionIn(k, v, span int) int {
	for u := v; u > 0; u-- {
		for j := range revisedParas {
			if (u*7+j*3)%span == k {
				return u
			}
		}
	}
	return 0
}

func paragraph(r *rand.Rand) string {
	var b strings.Builder
	for s := range 4 + r.IntN(4) {
		if s > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(capitalize(phrase(r, 8+r.IntN(11))))
		b.WriteString([]string{".", ".", ".", "?", ";", "!"}[r.IntN(6)])
	}
	return b.String()
}

func phrase(r *rand.Rand, n int) string {
	ws := make([]string, n)
	for k := range ws {
		ws[k] = words[r.IntN(len(words))]
	}
	return strings.Join(ws, " ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// writeHead writes the page's head: meta tags, a style sheet and a script,
// the markup around the text that makes up much of a real page.
func writeHead(b *bytes.Buffer, r *rand.Rand, title, base string, i, c, p int) {
	desc := capitalize(phrase(r, 18))
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"+
		"<title>%s</title>\n<meta name=\"description\" content=\"%s\">\n<meta property=\"og:title\" content=\"%s\">\n<meta property=\"og:description\" content=\"%s\">\n"+
		"<meta property=\"og:url\" content=\"%s/c%d/pages/%06d.html\">\n<link rel=\"canonical\" href=\"%s/c%d/pages/%06d.html\">\n"+
		"<link rel=\"stylesheet\" href=\"%s/static/site.css?v=%d\">\n", title, desc, title, desc, base, c, p, base, c, p, base, i%7)
	fmt.Fprintf(b, "<style>\nbody.site-%d{font-family:Georgia,serif;margin:0 auto;max-width:%dem;color:#222}\n%s</style>\n", i, 36+i%8, pageStyle)
	fmt.Fprintf(b, "<script>window.dataLayer=window.dataLayer||[];window.dataLayer.push({site:%d,collection:%d,page:%d});</script>\n</head>\n", i, c, p)
}

const pageStyle = `.site-header{display:flex;align-items:center;justify-content:space-between;padding:1rem 2rem;border-bottom:1px solid #ddd}
.logo{font-weight:700;font-size:1.3rem;text-decoration:none;color:#036}
.nav-list{list-style:none;display:flex;flex-wrap:wrap;gap:1rem;margin:0;padding:0}
.nav-link{color:#036;text-decoration:none}.nav-link:hover,.nav-link:focus{text-decoration:underline}
.container{display:grid;grid-template-columns:16rem 1fr;gap:2rem;padding:2rem}
@media (max-width:48rem){.container{grid-template-columns:1fr}.sidebar{order:2}}
.sidebar-title{font-size:1rem;text-transform:uppercase;letter-spacing:.05em;color:#555}
.related-list{list-style:none;padding:0}.related-item{margin:.5rem 0}.related-link{color:#036}
.post-title{font-size:2.2rem;line-height:1.2;border-bottom:1px solid #ccc;padding-bottom:.5rem}
.post-meta{color:#777;font-size:.9rem;margin-bottom:1.5rem}
.section-title{font-size:1.4rem;margin-top:2rem}.block-text{margin:0 0 1rem}
.body-text{line-height:1.6;hyphens:auto}
.site-footer{background:#f4f4f4;padding:2rem;font-size:.85rem;color:#666}
.footer-links{list-style:none;display:flex;gap:1rem;padding:0}
`

const pageScript = `<script>
(function(){var d=document,w=window;function ready(f){if(d.readyState!=='loading'){f()}else{d.addEventListener('DOMContentLoaded',f)}}
ready(function(){var links=d.querySelectorAll('a[data-track]');for(var i=0;i<links.length;i++){links[i].addEventListener('click',function(e){
w.dataLayer.push({event:'nav',target:e.currentTarget.getAttribute('data-track')})})}
var blocks=d.querySelectorAll('.block-text');d.body.setAttribute('data-blocks',String(blocks.length));
if('IntersectionObserver' in w){var seen={};var io=new IntersectionObserver(function(es){es.forEach(function(en){
if(en.isIntersecting){var k=en.target.getAttribute('data-block');if(!seen[k]){seen[k]=1;w.dataLayer.push({event:'read',block:k})}}})});
blocks.forEach(function(b){io.observe(b)})}});})();
</script>
`
