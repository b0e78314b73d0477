package pagetext

import (
	"bufio"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
)

// maxReadabilityElements skips readability on pages with more elements:
// its passes grow faster than linearly, and such pages are lists or
// tables, which its scoring handles badly anyway.
const maxReadabilityElements = 20000

// articleShare is how much of the body's text readability's article must
// hold to be used. Below it readability has most likely picked one block
// of a page that is mostly lists (a shrine's links page, a gallery index),
// and the whole body says better what the page is.
const articleShare = 3 // the article holds at least a third of the body

// A page read one way before is read that way again unless the other way
// now clearly fits better: a page near articleShare would otherwise flip
// between versions, and each flip reads as the whole page changing. A page
// read as its article stays so while the article holds a sixth of the
// body; one read whole switches to its article once that holds half.
const (
	articleShareKept   = 6
	articleShareSwitch = 2
)

// extractHTML fills s from an HTML body; stream skips the tree and
// readability (see treeLimit).
func extractHTML(s *Snapshot, body []byte, contentType, pageURL string, maxText int, stream, wholeBody bool, prefer string, remove []Selector, keepUnremoved bool) {
	enc, name, guessed := pageEncoding(body, contentType)
	s.Charset, s.CharsetGuessed = name, guessed
	bodyLines := newLineBuilder(maxText)
	streamed := func() {
		streamHTML(bodyLines, decodedReader(body, enc, name))
		s.Text = bodyLines.finish()
		s.Title, s.Truncated, s.Method = bodyLines.pageTitle(), bodyLines.truncated, MethodBody
	}
	if stream {
		streamed()
		return
	}
	doc, err := html.Parse(decodedReader(body, enc, name))
	if err != nil {
		// The parser refuses a tree nested deeper than 512 elements (and a
		// bytes reader has no other errors). The tokenizer keeps no stack,
		// so the page keeps its text and loses only the depth.
		streamed()
		return
	}
	if len(remove) > 0 && keepUnremoved {
		whole := newLineBuilder(maxText)
		walk(whole, doc)
		s.Unremoved = whole.finish()
	}
	removeMatching(doc, remove)
	walk(bodyLines, doc)
	s.Title = bodyLines.pageTitle()
	bodyText := bodyLines.finish()
	s.Text, s.Truncated, s.Method = bodyText, bodyLines.truncated, MethodBody
	if wholeBody || bodyLines.elements > maxReadabilityElements || bodyText == "" {
		return
	}
	// Read before readability, which mutates the tree.
	marked, markedTruncated := markedMain(doc, maxText)
	article := articleText(doc, pageURL, maxText)
	if article == nil {
		return
	}
	text, truncated := article.finish(), article.truncated
	if marked != "" && !sharesLine(text, marked) {
		// Readability picked a part outside what the page marks as its
		// main content: on a short page, its footer line.
		text, truncated = marked, markedTruncated
	}
	share := articleShare
	switch prefer {
	case MethodArticle:
		share = articleShareKept
	case MethodBody:
		share = articleShareSwitch
	}
	if len(text)*share >= len(bodyText) {
		s.Text, s.Truncated, s.Method = text, truncated, MethodArticle
	}
}

// markedMain returns the text of what the page marks as its main content:
// its <main> (or role="main"), else its one <article>; "" when it marks
// none.
func markedMain(doc *html.Node, maxText int) (string, bool) {
	var mains, articles []*html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case n.Data == "main" || attr(n, "role") == "main":
				mains = append(mains, n)
				return
			case n.Data == "article":
				articles = append(articles, n)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	var n *html.Node
	switch {
	case len(mains) == 1:
		n = mains[0]
	case len(mains) == 0 && len(articles) == 1:
		n = articles[0]
	default:
		return "", false
	}
	b := newLineBuilder(maxText)
	walk(b, n)
	return b.finish(), b.truncated
}

// sharesLine reports whether a and b have a line in common.
func sharesLine(a, b string) bool {
	lines := map[string]bool{}
	for _, l := range strings.Split(b, "\n") {
		lines[l] = true
	}
	for _, l := range strings.Split(a, "\n") {
		if l != "" && lines[l] {
			return true
		}
	}
	return false
}

// articleText runs readability over doc, which it mutates, and returns the
// lines of the article it finds, or nil.
func articleText(doc *html.Node, pageURL string, maxText int) *lineBuilder {
	base, err := url.Parse(pageURL)
	if err != nil || !base.IsAbs() {
		base = nil
	}
	node := articleNode(doc, base)
	if node == nil {
		return nil
	}
	b := newLineBuilder(maxText)
	walk(b, node)
	return b
}

func articleNode(doc *html.Node, base *url.URL) (node *html.Node) {
	// Readability is a pile of heuristics run on hostile markup; should one
	// of them panic, the page still has its body text.
	defer func() {
		if recover() != nil {
			node = nil
		}
	}()
	parser := readability.NewParser()
	parser.DisableJSONLD = true // only its metadata uses JSON-LD, and tidings takes none
	article, err := parser.ParseAndMutate(doc, base)
	if err != nil {
		return nil
	}
	return article.Node
}

// walk feeds a parsed tree to b in document order.
func walk(b *lineBuilder, n *html.Node) {
	switch n.Type {
	case html.TextNode:
		b.text(n.Data)
		return
	case html.ElementNode:
		if hidden(n) {
			return
		}
		b.start(n.Data, attr(n, "alt"))
		for c := n.FirstChild; c != nil && !b.full(); c = c.NextSibling {
			walk(b, c)
		}
		b.end(n.Data)
		return
	}
	for c := n.FirstChild; c != nil && !b.full(); c = c.NextSibling {
		walk(b, c)
	}
}

func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && (a.Key == "hidden" || a.Key == "aria-hidden" && a.Val == "true") {
			return true
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return strings.TrimSpace(a.Val)
		}
	}
	return ""
}

// streamHTML feeds a page to b token by token, without building a tree,
// and stops once b has all the text it keeps.
func streamHTML(b *lineBuilder, r io.Reader) {
	z := html.NewTokenizer(bufio.NewReaderSize(r, 64<<10))
	for !b.full() {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return
		case html.TextToken:
			if b.skip == 0 { // a skipped script's text is never copied
				b.text(string(z.Text()))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			tag, alt := string(name), ""
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "alt" {
					alt = strings.TrimSpace(string(v))
				}
			}
			b.start(tag, alt)
			if tt == html.SelfClosingTagToken || voidTags[tag] {
				b.end(tag)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			b.end(string(name))
		}
	}
}

// voidTags never have an end tag; streaming must close them itself so a
// skipped one cannot swallow the rest of the page.
var voidTags = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true,
	"hr": true, "img": true, "input": true, "link": true, "meta": true,
	"source": true, "track": true, "wbr": true,
}

// streamText feeds plain text to b in chunks, carrying a rune cut by a
// chunk's end over to the next; b must treat newlines as line ends.
func streamText(b *lineBuilder, r io.Reader) {
	buf := make([]byte, 32<<10)
	carry := 0
	for !b.full() {
		n, err := r.Read(buf[carry:])
		n += carry
		end := n
		if err == nil {
			for i := n - 1; i >= 0 && i >= n-utf8.UTFMax; i-- {
				if utf8.RuneStart(buf[i]) {
					if !utf8.FullRune(buf[i:n]) {
						end = i
					}
					break
				}
			}
		}
		b.text(string(buf[:end]))
		carry = copy(buf, buf[end:n])
		if err != nil {
			return
		}
	}
}
