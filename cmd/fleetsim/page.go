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
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n", title)
	fmt.Fprintf(&b, "<style>\nbody{font-family:Georgia,serif;margin:0 auto;max-width:%dem;color:#222}\nnav a{margin-right:1em;color:#036}\n"+
		"h1{font-size:2em;border-bottom:1px solid #ccc}\nh2{font-size:1.4em;margin-top:2em}\n.footer{font-size:.8em;color:#666}\n"+
		".site-%d .lead{font-weight:bold}\n</style>\n", 36+i%8, i)
	fmt.Fprintf(&b, "<script>\nwindow.analytics=window.analytics||[];window.analytics.push({site:%d,collection:%d,page:%d});\n"+
		"document.addEventListener('DOMContentLoaded',function(){var n=document.querySelectorAll('p').length;"+
		"document.body.setAttribute('data-paragraphs',String(n));});\n</script>\n</head>\n", i, c, p)
	fmt.Fprintf(&b, "<body class=\"site-%d\">\n<nav>", i)
	for k := range 8 {
		fmt.Fprintf(&b, "<a href=\"%s/c%d/pages/%06d.html\">%s</a> ", base, c, (p+k+1)%1000, capitalize(phrase(r, 1+r.IntN(2))))
	}
	fmt.Fprintf(&b, "</nav>\n<main>\n<article>\n<h1>%s</h1>\n", title)
	footer := fmt.Sprintf("</article>\n</main>\n<footer class=\"footer\"><p>Site %d, collection %d. Published by the %s.</p>"+
		"<p><a href=\"%s/\">Home</a> · <a href=\"%s/contact.html\">Contact</a> · <a href=\"%s/privacy.html\">Privacy</a></p></footer>\n</body>\n</html>\n",
		i, c, phrase(r, 3), base, base, base)
	// The page's length is counted as at version 0, so that a revision
	// rewrites paragraphs without adding or dropping any.
	skew := 0
	for k := 0; b.Len()+skew+len(footer) < pageSize; {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", capitalize(phrase(r, 2+r.IntN(4))))
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
			b.WriteString("<p>")
			b.WriteString(text)
			b.WriteString("</p>\n")
			k++
		}
	}
	b.WriteString(footer)
	return b.Bytes()
}

// paraVersion is the latest of versions 1..v that rewrote paragraph k, or
// 0. Version u rewrites paragraphs u×7 and u×7+3, modulo paraSpan.
func paraVersion(k, v int) int {
	for u := v; u > 0; u-- {
		for j := range revisedParas {
			if (u*7+j*3)%paraSpan == k {
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
