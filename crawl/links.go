package crawl

import (
	"bytes"
	"net/url"
	"slices"
	"strings"
	"tidings/hints"
	"tidings/urls"

	"golang.org/x/net/html"
)

// Page is what one page's HTML tells the crawl.
type Page struct {
	// Links are the pages it links to that the crawl may follow:
	// canonical, in scope, not files, not traps, without duplicates, in
	// document order, at most MaxLinks. Query strings are dropped unless
	// the page links nothing else (a site of index.php?page= addresses).
	Links []string
	// Dropped counts the links past MaxLinks.
	Dropped int
	// Canonical is the page's <link rel="canonical"> when it is in scope,
	// else "".
	Canonical string
	// SignIn: the page asks for a password, so it is a sign-in page, not
	// the page that was asked for.
	SignIn bool
}

// Parse reads the links of an HTML page fetched from pageURL (its final
// URL, after redirects), against the scope being watched: <a> and <area>
// links, and the pages of <frame> and <iframe>. <base href> is honoured,
// links marked rel="nofollow" are not followed, and reading stops after
// MaxHTMLBytes.
func Parse(body []byte, pageURL string, scope urls.WatchScope) Page {
	if len(body) > MaxHTMLBytes {
		body = body[:MaxHTMLBytes]
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return Page{}
	}
	p := linkScan{base: base, scope: scope, seen: map[string]bool{}}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			name, more := z.TagName()
			p.tag(string(name), hints.Attrs(z, more))
		}
	}
	return p.page()
}

// linkScan is Parse's state between tags.
type linkScan struct {
	base      *url.URL
	baseSet   bool
	scope     urls.WatchScope
	seen      map[string]bool
	plain     []string // links without a query
	queried   []string // links with one, kept for a page that has only those
	canonical string
	signIn    bool
	dropped   int
}

func (p *linkScan) tag(name string, a map[string]string) {
	switch name {
	case "base":
		if href, ok := a["href"]; ok && !p.baseSet {
			p.baseSet = true
			if u, err := p.base.Parse(strings.TrimSpace(href)); err == nil {
				p.base = u
			}
		}
	case "a", "area":
		if href, ok := a["href"]; ok && !hints.HasToken(a["rel"], "nofollow") {
			p.link(href)
		}
	case "frame", "iframe":
		// Hand-made sites include their navigation in a frame.
		if src, ok := a["src"]; ok {
			p.link(src)
		}
	case "link":
		if hints.HasToken(a["rel"], "canonical") && p.canonical == "" {
			if u, ok := p.resolve(a["href"], false); ok && p.scope.Contains(u) {
				p.canonical = u
			}
		}
	case "input":
		if strings.EqualFold(strings.TrimSpace(a["type"]), "password") {
			p.signIn = true
		}
	}
}

func (p *linkScan) link(href string) {
	u, ok := p.resolve(href, true)
	if !ok || !p.scope.Contains(u) || notPage(u) || Trap(u) || p.seen[u] {
		return
	}
	if len(p.plain)+len(p.queried) >= 2*MaxLinks {
		p.dropped++
		return
	}
	p.seen[u] = true
	if strings.Contains(u, "?") {
		p.queried = append(p.queried, u)
	} else {
		p.plain = append(p.plain, u)
	}
}

func (p *linkScan) resolve(href string, keepQuery bool) (string, bool) {
	href = strings.TrimSpace(href)
	if href == "" || len(href) > MaxURLBytes {
		return "", false
	}
	u, err := p.base.Parse(href)
	if err != nil {
		return "", false
	}
	return urls.Canonical(u.String(), keepQuery)
}

func (p *linkScan) page() Page {
	links := p.plain
	if len(links) == 0 {
		links = p.queried
	} else {
		// Their query-less forms are pages too: /calendar for every
		// /calendar?month=….
		for _, q := range p.queried {
			bare, _, _ := strings.Cut(q, "?")
			if !p.seen[bare] {
				p.seen[bare] = true
				links = append(links, bare)
			}
		}
	}
	dropped := p.dropped
	if len(links) > MaxLinks {
		dropped += len(links) - MaxLinks
		links = links[:MaxLinks]
	}
	return Page{Links: links, Dropped: dropped, Canonical: p.canonical, SignIn: p.signIn}
}

// NotFound reports whether a page that answered 200 says it is not there
// (a "soft 404"): its title, or the first line of its text, says "not
// found" or "does not exist", or is an error 404 ("404", "Error 404",
// "404 error"). A title that merely has 404 among its words ("Room 404")
// is a page. Such a page is no page: a link to it is not watched, and a
// watched page that turns into one is deleted.
func NotFound(title, firstLine string) bool {
	for _, s := range []string{title, firstLine} {
		s = strings.ToLower(s)
		if strings.Contains(s, "not found") || strings.Contains(s, "does not exist") ||
			strings.Contains(s, "doesn't exist") || strings.Contains(s, "doesn’t exist") || says404(s) {
			return true
		}
	}
	return false
}

// says404: the words are an error 404, alone or with "error", "page",
// "http".
func says404(s string) bool {
	words := strings.FieldsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	if !slices.Contains(words, "404") || len(words) > 3 {
		return false
	}
	for _, w := range words {
		switch w {
		case "404", "error", "page", "http", "status":
		default:
			return false
		}
	}
	return true
}
