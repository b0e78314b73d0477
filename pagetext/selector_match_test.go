package pagetext

import (
	"context"
	"strings"
	"testing"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// The walk finds what cascadia's own matching finds, for every kind of
// combinator and the pseudo-classes a rule may use.
func TestSelectorMatchesAsCascadia(t *testing.T) {
	const page = `<html><body>
<nav class="top"><ul><li><a href="/a">A</a></li><li class="on"><a>B</a><span>s</span></li></ul></nav>
<main id="m"><h1>T</h1><p class="x">one</p><p>two <em>e</em></p><div><p class="x">three</p></div>
<section><h2>S</h2><p>four</p><span></span><p class="y">five</p><p class="x y">six</p></section></main>
<footer><div class="webring"><p>ring <a href="/r">r</a></p></div><p id="hits">Hits: 12</p></footer>
</body></html>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{
		"p", "#hits", ".x", "main p", "main > p", "section p.x", "h2 + p", "h2 ~ p", "h1 ~ p.x",
		"nav ul li a", "nav > ul > li > a", "li:first-child a", "li:last-child > span", "span:empty",
		"p:not(.x)", "p:not(.x, .y)", "footer *", "* > em", "main div p, footer p", "body > * p",
		"section > p + p", "ul li + li a", "div.webring a[href]", "a[href^='/r']", "html:root > body > nav",
		"p:only-child", "main ~ footer p",
	} {
		want := cascadia.QueryAll(doc, cascadia.MustCompile(sel))
		s, err := ParseSelector(sel)
		if err != nil {
			t.Errorf("%q refused: %v", sel, err)
			continue
		}
		m := matcher{sel: s}
		m.walk(doc, nil)
		if !sameNodes(m.found, want) {
			t.Errorf("%q matched %d elements, cascadia %d", sel, len(m.found), len(want))
		}
	}
}

func sameNodes(a, b []*html.Node) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[*html.Node]bool{}
	for _, n := range a {
		in[n] = true
	}
	for _, n := range b {
		if !in[n] {
			return false
		}
	}
	return true
}

// Selectors whose cost grows faster than the page are refused as they
// are written, with a reason a person can act on.
func TestCostlySelectorsRefused(t *testing.T) {
	for sel, why := range map[string]string{
		"x * * * * * * * * * * * * *": "at most 5",
		"div:has(p)":                  ":has costs too much",
		"p:contains(hits)":            ":contains costs too much",
		"p:lang(en)":                  ":lang costs too much",
		"li:nth-of-type(2n)":          ":nth-of-type costs too much",
		"p:not(div p)":                "simple selectors only",
		"p:not(:has(a))":              ":has costs too much",
		`a[href#=(\d+)]`:              "regular expression",
		".a,.b,.c,.d,.e,.f,.g,.h,.i":  "at most 8",
	} {
		_, err := ParseSelector(sel)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: error %v, want one saying %q", sel, err, why)
		}
	}
}

// A selector of five universal compounds on a page nested as deep as the
// HTML parser allows costs its compounds per element, not one try per
// ancestor per compound, and a rule that spends its budget is switched
// off and named.
func TestSelectorCostIsLinear(t *testing.T) {
	const depth = 500
	body := strings.Repeat("<div>", depth) + "<p>deep</p>" + strings.Repeat("</div>", depth)
	page := []byte("<html><body>" + body + "<p>Kept</p></body></html>")
	s, err := ParseSelector("* * * * p")
	if err != nil {
		t.Fatal(err)
	}
	n := &Noise{Remove: []Selector{s}}
	n.Bound(context.Background(), 1<<40)
	snap, err := Options{WholeBody: true, Remove: n.Remove}.Extract(page, "text/html", "")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Text != "Kept" {
		t.Errorf("text %q, want the deep paragraph left out", snap.Text)
	}
	elements := int64(depth + 5) // html, head, body, the divs, two p
	if spent := s.cost.spent.Load(); spent > elements*s.cost.weight {
		t.Errorf("spent %d units on %d elements, over %d", spent, elements, elements*s.cost.weight)
	}

	// The same rule with a budget smaller than the page is switched off
	// when it is spent: the page keeps its text, and the rule is named.
	s, _ = ParseSelector("* * * * p")
	n = &Noise{Remove: []Selector{s}}
	n.Bound(context.Background(), 100)
	snap, err = Options{WholeBody: true, Remove: n.Remove}.Extract(page, "text/html", "")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Text != "deep\nKept" {
		t.Errorf("text %q, want the page whole", snap.Text)
	}
	if _, sels := n.Spent(); len(sels) != 1 || sels[0] != "* * * * p" {
		t.Errorf("spent selectors %q, want the rule", sels)
	}

	// A harvest that ends ends the matching with it.
	s, _ = ParseSelector("* p")
	n = &Noise{Remove: []Selector{s}}
	ctx, cancel := context.WithCancel(context.Background())
	n.Bound(ctx, 1<<40)
	cancel()
	m := matcher{sel: s}
	doc, _ := html.Parse(strings.NewReader(string(page)))
	m.walk(doc, nil)
	if !m.stopped || m.walked > chargeEvery {
		t.Errorf("walked %d elements after the harvest ended (stopped %v)", m.walked, m.stopped)
	}
}

// A pattern whose program is too big is refused as written; a text rule
// that spends its budget stops matching, and is named.
func TestRuleCost(t *testing.T) {
	if _, err := ParseRule("/.{0,1000}x/"); err == nil || !strings.Contains(err.Error(), "repetitions smaller") {
		t.Errorf("/.{0,1000}x/: error %v, want it refused for its size", err)
	}
	if _, err := ParseRule("/.{0,100}x/"); err != nil {
		t.Errorf("/.{0,100}x/ refused: %v", err)
	}
	r, err := ParseRule("/moth ring: \\w+/")
	if err != nil {
		t.Fatal(err)
	}
	n := &Noise{Rules: []Rule{r}}
	n.Bound(context.Background(), 10*int64(len("Moth ring: Kestrel"))*r.cost.weight)
	ignored := 0
	for range 20 {
		if n.Ignores("Moth ring: Kestrel") {
			ignored++
		}
	}
	if ignored != 10 {
		t.Errorf("the rule matched %d times, want its budget of 10", ignored)
	}
	if rules, _ := n.Spent(); len(rules) != 1 || rules[0] != "/moth ring: \\w+/" {
		t.Errorf("spent rules %q, want the pattern", rules)
	}
}
