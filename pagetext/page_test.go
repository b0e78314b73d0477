package pagetext

import (
	"fmt"
	"strings"
)

// realisticPage builds a page of about size bytes shaped like the sites
// tidings follows: a head with scripts and styles, a navigation list, an
// article of headings, paragraphs and lists, a table, and a footer.
func realisticPage(size int, version int) string {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Cats of the Month &amp; Friends</title>
<meta name="viewport" content="width=device-width">
<link rel="stylesheet" href="/style.css">
<style>body{font-family:serif;background:#fdf}nav li{display:inline}</style>
<script>window.dataLayer=[];function track(){dataLayer.push(arguments)}</script>
</head><body>
<header><a href="/">My Shrine &amp; Co</a>
<nav><ul><li><a href="/">Home</a></li><li><a href="/cats/">Cats</a></li><li><a href="/links.html">Links</a></li><li><a href="/guestbook/">Guestbook</a></li></ul></nav></header>
<main><article><h1>Cats of the Month</h1>
`)
	for i := 0; sb.Len() < size-1500; i++ {
		fmt.Fprintf(&sb, "<h2>Section %d: the cat called Whiskers %d</h2>\n", i, i)
		word := "sleeps"
		if version > 0 && i == 2 {
			word = "purrs"
		}
		fmt.Fprintf(&sb, `<p class="lead">Whiskers number %d %s on the <em>warm</em> windowsill every afternoon, and
the neighbours say she is the <a href="/cats/%d.html">finest cat</a> on the street. She was adopted in spring
from the shelter on Elm Road &amp; has lived with us since.</p>
<p>Her favourite toys are a knitted mouse, a cardboard box and the cord of the blinds, which she is not
allowed to touch but touches anyway when nobody is looking.</p>
<ul><li>Age: %d years</li><li>Colour: tabby</li><li>Likes: tuna, sunshine</li></ul>
<script>track("section", %d)</script>
`, i, word, i, i+1, i)
		if i%4 == 3 {
			fmt.Fprintf(&sb, "<table><tr><th>Month</th><th>Votes</th></tr><tr><td>May</td><td>%d</td></tr></table>\n", 10*i)
		}
	}
	sb.WriteString(`</article></main>
<footer><p>Made with love. Last updated by hand.</p><noscript><p>Turn on scripts for the counter.</p></noscript></footer>
<script src="/counter.js"></script></body></html>`)
	return sb.String()
}
