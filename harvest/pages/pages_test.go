package pages

import (
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/internal/harvesttest"
)

// shrine writes a page of a hand-made site: a navigation listing every
// page, the page's own text, and a footer with the year, as static site
// generators and hand-made sites alike do.
func shrine(title string, nav []string, year string, body ...string) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>` + title + `</title><meta name="generator" content="build ` + year + `"></head><body><nav><ul>`)
	for _, n := range nav {
		href, label, _ := strings.Cut(n, " ")
		sb.WriteString(`<li><a href="` + href + `">` + label + `</a></li>`)
	}
	sb.WriteString(`</ul></nav><main><h1>` + title + `</h1>`)
	for _, b := range body {
		sb.WriteString(`<p>` + b + `</p>`)
	}
	sb.WriteString(`</main><footer><p>© ` + year + ` Ann, made by hand</p></footer></body></html>`)
	return sb.String()
}

var navV1 = []string{"/ Home", "/about.html About", "/gallery/ Gallery", "gallery/cat1.html Cat", "/links.html Links", "/old.html Old"}

// serveV1 is the fixture site's first version. Besides its pages it
// links to files, to a developer's leftover 127.0.0.1:8000 host, and to
// its own pages under other spellings.
func serveV1(s *watchSite) {
	s.set("/", shrine("Ann's cat shrine", navV1, "2025", "Welcome to my shrine about cats.",
		`See <a href="/index.html">home</a>, <a href="/about.html#me">me</a>, <a href="/style.css">style</a>, `+
			`<a href="/cat.png">a picture</a>, <a href="mailto:ann@example.org">mail</a>, `+
			`<a href="http://127.0.0.1:8000/draft.html">my draft</a> and <a href="javascript:void(0)">nothing</a>.`))
	s.set("/about.html", shrine("About me", navV1, "2025", "I like cats.", "I draw them every day."))
	s.set("/gallery/", shrine("Gallery", navV1, "2025", "Three drawings so far."))
	s.set("/gallery/cat1.html", shrine("The first cat", navV1, "2025", "A ginger cat asleep on a chair."))
	s.set("/links.html", shrine("Links", navV1, "2025", "Friends of the shrine: Bea and Cy."))
	s.set("/old.html", shrine("Old news", navV1, "2025", "The shrine opened in spring."))
}

var navV2 = []string{"/ Home", "/about.html About", "/gallery/ Gallery", "/links.html Links", "/new.html New"}

// serveV2 is its second version: a new year in every footer, a new page
// in every navigation, the about page's text changed, the links page's
// markup only, the old page gone, and the first cat no longer in the
// navigation (nor linked from anywhere), though still there.
func serveV2(s *watchSite) {
	s.set("/", shrine("Ann's cat shrine", navV2, "2026", "Welcome to my shrine about cats.",
		`See <a href="/index.html">home</a>, <a href="/about.html#me">me</a>, <a href="/style.css">style</a>, `+
			`<a href="/cat.png">a picture</a>, <a href="mailto:ann@example.org">mail</a>, `+
			`<a href="http://127.0.0.1:8000/draft.html">my draft</a> and <a href="javascript:void(0)">nothing</a>.`))
	s.set("/about.html", shrine("About me", navV2, "2026", "I like cats and dogs.", "I draw them every day."))
	s.set("/gallery/", shrine("Gallery", navV2, "2026", "Three drawings so far."))
	s.set("/gallery/cat1.html", shrine("The first cat", navV2, "2026", "A ginger cat asleep on a chair."))
	s.set("/links.html", strings.Replace(shrine("Links", navV2, "2026", "Friends of the shrine: Bea and Cy."),
		"<main>", `<main class="wide"><div class="box">`, 1))
	s.set("/new.html", shrine("Birds", navV2, "2026", "A new page about the birds the cats watch."))
	s.remove("/old.html")
}

// TestPagesTwoVersions: a site that publishes nothing is watched by
// crawling it, and its second version gives exactly the changes a reader
// wants: the about page updated (its text changed), the new page created,
// the old page deleted; nothing for the markup-only change, the new
// footer year or the new navigation line on every page, and nothing for
// the page that dropped out of the navigation but is still there.
func TestPagesTwoVersions(t *testing.T) { harvesttest.OnEachEngine(t, testPagesTwoVersions) }

func testPagesTwoVersions(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	serveV1(e.site)
	rep := e.follow("/")
	if len(rep.Collections) != 1 || rep.Collections[0].Collection.Protocol != Name {
		t.Fatalf("collections %+v, want one pages collection", rep.Collections)
	}
	col := rep.Collections[0]
	if col.Collection.Key != e.site.srv.URL+"/" || col.Run.Error != "" {
		t.Fatalf("collection %q, error %q", col.Collection.Key, col.Run.Error)
	}
	if col.Run.Changes != 0 {
		t.Errorf("the first harvest put %d changes in the feed, want none (the pages are already seen)", col.Run.Changes)
	}
	want := []string{"/", "/about.html", "/gallery/", "/gallery/cat1.html", "/links.html", "/old.html"}
	if got := e.watched(); !equalLists(got, want) {
		t.Fatalf("watched %q, want %q", got, want)
	}
	for _, p := range want {
		// The crawl starts from the page discovery read.
		if n := e.site.hit(p); n != 1 {
			t.Errorf("%s was fetched %d times in the first harvest, want 1", p, n)
		}
	}
	for _, p := range []string{"/style.css", "/cat.png", "/index.html"} {
		if n := e.site.hit(p); n != 0 {
			t.Errorf("%s was fetched: it is a file, or another spelling of a page", p)
		}
	}
	for _, d := range e.dials {
		if strings.HasSuffix(d, ":8000") {
			t.Errorf("the crawl connected to %s, the developer's leftover host", d)
		}
	}
	seen := e.changes()
	if len(seen) != len(want) {
		t.Errorf("first harvest stored %q, want one created change per page, seen", seen)
	}
	for _, c := range seen {
		if !strings.HasSuffix(c, "(seen)") {
			t.Errorf("first harvest stored %q in the feed", c)
		}
	}

	serveV2(e.site)
	rep = e.harvest()
	if w := harvesttest.Warnings(rep); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
	var fresh []string
	for _, c := range e.changes() {
		if !strings.HasSuffix(c, "(seen)") {
			fresh = append(fresh, c)
		}
	}
	if wantFresh := []string{"created /new.html", "deleted /old.html", "updated /about.html"}; !equalLists(fresh, wantFresh) {
		t.Errorf("second harvest stored %q, want %q", fresh, wantFresh)
	}
	about := e.exported("/about.html", "updated")
	changetest.Text(t, about, "About me", db.TextChanged, []string{"I like cats."}, []string{"I like cats and dogs."})
	if gone := e.exported("/old.html", "deleted"); gone.Title != "Old news" {
		t.Errorf("deleted page titled %q, want its last known title", gone.Title)
	}
	if got := e.watched(); !slices.Contains(got, "/new.html") || slices.Contains(got, "/old.html") || !slices.Contains(got, "/gallery/cat1.html") {
		t.Errorf("watched after the second version: %q", got)
	}

	// Nothing changed: every page answers 304, nothing is stored.
	before := len(e.changes())
	rep = e.harvest()
	run := rep.Collections[0].Run
	if run.Changes != 0 || len(e.changes()) != before {
		t.Errorf("an unchanged site gave changes: %q", e.changes())
	}
	// The seventh document: the gallery's broken link, which answered
	// 404, is asked for again (a page linked before it is written comes
	// the harvest after).
	if run.NotModified != 6 || run.Documents != 7 || e.site.hit("/gallery/gallery/cat1.html") != 3 {
		t.Errorf("unchanged harvest: %d documents, %d not modified, the broken link asked %d times; want 7, 6 and 3",
			run.Documents, run.NotModified, e.site.hit("/gallery/gallery/cat1.html"))
	}
	// Between full discoveries, a harvest reads the pages alone.
	for _, p := range []string{"/.well-known/resourcesync", "/sitemap.xml", "/robots.txt"} {
		if n := e.site.hit(p); n != 1 {
			t.Errorf("%s was asked %d times in three harvests, want once", p, n)
		}
	}
}
