package pages

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/pagetext"
)

// TestLinksWrittenBeforeTheirPages: a hand-made site links two pages
// before they exist. The one written the next day is found by the next
// harvest, though the home page linking it did not change (it answers
// 304); the other, written later, too. A page that links 60 missing pages
// costs a harvest at most 50 requests for them.
func TestLinksWrittenBeforeTheirPages(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	home := func(more string) {
		e.site.set("/", page("Bea's shrine", `<p>See my <a href="/neighbors.html">neighbors</a>, my <a href="/resources.html">resources</a>
			and <a href="/about.html">about</a>.</p>`+more))
	}
	home("")
	e.site.set("/about.html", page("About", "<p>I keep moths.</p>"))
	e.follow("/")

	e.site.set("/neighbors.html", page("Neighbors", "<p>Kestrel's moth pages, Owl's garden.</p>"))
	e.harvest()
	if fresh := e.fresh(); !slices.Equal(fresh, []string{"created /neighbors.html"}) {
		t.Fatalf("entries %q, want /neighbors.html created", fresh)
	}
	changetest.Text(t, e.exported("/neighbors.html", "created"), "Neighbors", db.TextChanged, nil, []string{"Kestrel's moth pages, Owl's garden."})

	// Written later, and the home page changed meanwhile: found at once.
	e.site.set("/resources.html", page("Resources", "<p>Where to buy moth food.</p>"))
	home("<p>Updated in spring.</p>")
	e.harvest()
	if fresh := e.fresh(); !slices.Contains(fresh, "created /resources.html") {
		t.Errorf("entries %q, want /resources.html created", fresh)
	}

	// Sixty links to pages not written: one harvest asks for 50 of them.
	var more strings.Builder
	for i := range 60 {
		fmt.Fprintf(&more, `<a href="/soon%d.html">soon %d</a> `, i, i)
	}
	home("<p>" + more.String() + "</p>")
	e.harvest()
	soon := func() int {
		n := 0
		for i := range 60 {
			n += e.site.hit(fmt.Sprintf("/soon%d.html", i))
		}
		return n
	}
	before := soon()
	e.harvest()
	if asked := soon() - before; asked != maxMissing {
		t.Errorf("a harvest asked for %d of the 60 missing pages, want %d", asked, maxMissing)
	}
}

// TestPagesAnyLinksDeep: a chain home → section → subsection → page →
// its notes, on a small site: every page of it is watched from the
// follow, and a page the deepest one links once it changes is found the
// next harvest.
func TestPagesAnyLinksDeep(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	chain := []string{"/", "/moths/", "/moths/night/", "/moths/night/luna.html", "/moths/night/luna-notes.html"}
	for i, p := range chain {
		body := fmt.Sprintf("<p>Page %d of the chain.</p>", i)
		if i+1 < len(chain) {
			body += fmt.Sprintf(`<p><a href="%s">on</a></p>`, chain[i+1])
		}
		e.site.set(p, page(fmt.Sprintf("Chain %d", i), body))
	}
	e.follow("/")
	if got := e.watched(); !slices.Equal(got, slices.Sorted(slices.Values(chain))) {
		t.Fatalf("watched %q, want the whole chain", got)
	}
	last := chain[len(chain)-1]
	e.site.set(last, page("Chain 4", `<p>Page 4 of the chain.</p><p>See <a href="/moths/night/luna-eggs.html">the eggs</a>.</p>`))
	e.site.set("/moths/night/luna-eggs.html", page("Luna eggs", "<p>They hatch in ten days.</p>"))
	e.harvest()
	if fresh := e.fresh(); !slices.Contains(fresh, "created /moths/night/luna-eggs.html") {
		t.Errorf("entries %q, want the eggs page, six links deep, created", fresh)
	}
}

// TestRenamedWatchedPage: the home page now links /cooking/recipes.html
// instead of /recipes.html, which answers 301 there with the same text:
// the move is recorded, /recipes.html deleted and /cooking/recipes.html
// created, and the new address is watched, so that its next edit comes.
func TestRenamedWatchedPage(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	recipes := page("Recipes", "<p>Moth-friendly lemonade.</p><p>Night garden soup.</p>")
	e.site.set("/", page("Kitchen", `<p>My <a href="/recipes.html">recipes</a> and <a href="/about.html">me</a>.</p>`))
	e.site.set("/recipes.html", recipes)
	e.site.set("/about.html", page("About", "<p>I cook.</p>"))
	e.follow("/")

	e.site.set("/", page("Kitchen", `<p>My <a href="/cooking/recipes.html">recipes</a> and <a href="/about.html">me</a>.</p>`))
	e.site.remove("/recipes.html")
	e.site.set("/cooking/recipes.html", recipes)
	e.site.mu.Lock()
	e.site.moved["/recipes.html"] = "/cooking/recipes.html"
	e.site.mu.Unlock()
	e.harvest()
	fresh := e.fresh()
	if !slices.Contains(fresh, "deleted /recipes.html") || !slices.Contains(fresh, "created /cooking/recipes.html") {
		t.Errorf("entries %q, want the move: /recipes.html deleted, /cooking/recipes.html created", fresh)
	}
	if got := e.watched(); !slices.Contains(got, "/cooking/recipes.html") || slices.Contains(got, "/recipes.html") {
		t.Fatalf("watched %q, want the new address and not the old", got)
	}

	e.site.set("/cooking/recipes.html", page("Recipes", "<p>Moth-friendly lemonade.</p><p>Night garden soup.</p><p>Ginger cake.</p>"))
	e.harvest()
	if fresh := e.fresh(); !slices.Contains(fresh, "updated /cooking/recipes.html") {
		t.Errorf("entries %q, want the renamed page's edit", fresh)
	}
}

// TestLinksOfANewPageAreRead: a new comics section linking six comics
// comes while a harvest may read few pages: the section is created, and
// the comics its first read offered are read by the harvests after, though
// the section answers 304 from then on.
func TestLinksOfANewPageAreRead(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: 3}})
	e.site.set("/", page("Home", `<p><a href="/about.html">about</a></p>`))
	e.site.set("/about.html", page("About", "<p>I draw comics.</p>"))
	e.follow("/")

	var comics strings.Builder
	for i := range 6 {
		fmt.Fprintf(&comics, `<a href="/comics/%d.html">comic %d</a> `, i, i)
		e.site.set(fmt.Sprintf("/comics/%d.html", i), page(fmt.Sprintf("Comic %d", i), fmt.Sprintf("<p>Panel one of comic %d.</p>", i)))
	}
	e.site.set("/comics/", page("Comics", "<p>"+comics.String()+"</p>"))
	e.site.set("/", page("Home", `<p><a href="/about.html">about</a> <a href="/comics/">comics</a></p>`))
	for range 4 {
		e.harvest()
	}
	fresh := e.fresh()
	for i := range 6 {
		if c := fmt.Sprintf("created /comics/%d.html", i); !slices.Contains(fresh, c) {
			t.Errorf("entries %q lack %s", fresh, c)
		}
	}
}

// TestANewBigPageStoresItsOpening: a new watched page of 100 KB is
// created with its opening lines and the count of the rest, not its whole
// text, which its snapshot holds already.
func TestANewBigPageStoresItsOpening(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.set("/", page("Home", `<p><a href="/about.html">about</a></p>`))
	e.site.set("/about.html", page("About", "<p>Moths.</p>"))
	e.follow("/")
	var b strings.Builder
	for i := 0; b.Len() < 100<<10; i++ {
		fmt.Fprintf(&b, "<p>Line %d of the long moth notes, with words enough to fill a page.</p>", i)
	}
	e.site.set("/notes.html", page("Notes", b.String()))
	e.site.set("/", page("Home", `<p><a href="/about.html">about</a> <a href="/notes.html">notes</a></p>`))
	e.harvest()
	c := e.exported("/notes.html", "created")
	var d pagetext.Diff
	if err := json.Unmarshal([]byte(c.Diff), &d); err != nil {
		t.Fatal(err)
	}
	if len(c.Diff) > 8<<10 || d.More == 0 || len(d.Ops) != 1 || !strings.HasPrefix(d.Ops[0].Ins[0], "Notes") && !strings.HasPrefix(d.Ops[0].Ins[0], "Line 0") {
		t.Errorf("a new page of 100 KB stored a diff of %d bytes (%d more lines), want its opening", len(c.Diff), d.More)
	}
}
