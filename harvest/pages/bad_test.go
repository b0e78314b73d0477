package pages

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/source"
)

func page(title string, body ...string) string {
	return `<!doctype html><html><head><title>` + title + `</title></head><body>` + strings.Join(body, "") + `</body></html>`
}

// TestPagesCrawlTrap: a calendar whose pages link the next month for
// ever, and a directory whose relative link makes /a/a/a/…, end within
// the bounds: a few query variants of one path, no repeated segments,
// and --watch-pages.
func TestPagesCrawlTrap(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.set("/", page("Home", `<a href="/calendar">calendar</a> <a href="/a/">a</a>`))
	// Every month links the next one; only query strings, so they are kept.
	var months []string
	for m := range 20 {
		months = append(months, fmt.Sprintf(`<a href="/calendar?month=%d">month %d</a>`, m, m))
	}
	e.site.set("/calendar", page("Calendar", months...))
	e.site.srv.Config.Handler = calendarSite(e.site)
	e.site.set("/a/", page("A", `<a href="a/">deeper</a>`))
	rep := e.follow("/")
	if err := rep.Collections[0].Run.Error; err != "" {
		t.Fatalf("error %q", err)
	}
	got := e.watched()
	watchedMonths := 0
	for _, u := range got {
		if strings.HasPrefix(u, "/calendar?") {
			watchedMonths++
		}
		if strings.Count(u, "a/") >= 3 {
			t.Errorf("watched the trap %q", u)
		}
	}
	if watchedMonths != maxQueryVariants {
		t.Errorf("watched %d months of the calendar, want %d: %q", watchedMonths, maxQueryVariants, got)
	}
	if len(e.site.requests()) > 20 {
		t.Errorf("the crawl made %d requests: %q", len(e.site.requests()), e.site.requests())
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, "differ only by their query string") {
		t.Errorf("no warning of the query variants left out: %q", w)
	}
}

// calendarSite answers /calendar?month=N with a link to month N+1, and
// the rest as s does.
func calendarSite(s *watchSite) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/calendar" && r.URL.Query().Get("month") != "" {
			s.mu.Lock()
			s.log = append(s.log, r.URL.RequestURI())
			s.mu.Unlock()
			var m int
			fmt.Sscan(r.URL.Query().Get("month"), &m)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page(fmt.Sprintf("Month %d", m), fmt.Sprintf(`<p>Events of month %d</p><a href="/calendar?month=%d">next</a>`, m, m+1)))
			return
		}
		s.serve(w, r)
	})
}

// TestPagesSignInWall: a site whose every address redirects to its
// sign-in page cannot be watched, and says so.
func TestPagesSignInWall(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	for _, p := range []string{"/", "/about.html", "/cats.html"} {
		e.site.moved[p] = "/login?next=" + p
	}
	e.site.set("/login", page("Sign in", `<form method=post><input name=user><input type=password name=pw></form><a href="/about.html">about</a> <a href="/cats.html">cats</a>`))
	_, err := e.h.Follow(t.Context(), e.site.srv.URL+"/")
	if err == nil || !strings.Contains(err.Error(), "sign-in page") {
		t.Fatalf("follow: %v, want a sign-in error", err)
	}
	if got := e.changes(); len(got) != 0 {
		t.Errorf("stored %q", got)
	}

	// A site whose pages are open but whose members' pages are not: the
	// open pages are watched, the others said to need signing in.
	e2 := newWatchEnv(t, harvest.Options{})
	e2.site.set("/", page("Club", `<a href="/news.html">news</a> <a href="/members/">members</a> <a href="/members/list.html">list</a>`))
	e2.site.set("/news.html", page("News", `<p>We met on Tuesday.</p>`))
	e2.site.moved["/members/"] = "/login"
	e2.site.moved["/members/list.html"] = "/login"
	e2.site.set("/login", page("Sign in", `<input type=password>`))
	rep := e2.follow("/")
	if got, want := e2.watched(), []string{"/", "/news.html"}; !equalLists(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, "2 address(es) lead to a sign-in page") {
		t.Errorf("warnings %q", w)
	}
}

// TestPagesSoftNotFound: a link to a page that answers 200 saying "not
// found" is no page, and a watched page that turns into one is deleted.
func TestPagesSoftNotFound(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.set("/", page("Home", `<a href="/gone.html">gone</a> <a href="/cats.html">cats</a>`))
	e.site.set("/gone.html", page("Page not found", `<h1>Sorry</h1>`))
	e.site.set("/cats.html", page("Cats", `<p>Tabby.</p>`))
	e.follow("/")
	if got, want := e.watched(), []string{"/", "/cats.html"}; !equalLists(got, want) {
		t.Fatalf("watched %q, want %q", got, want)
	}
	e.site.set("/cats.html", page("Oops", `<h1>404 - this page does not exist</h1>`))
	e.harvest()
	if got := e.changes(); !slices.Contains(got, "deleted /cats.html") {
		t.Errorf("changes %q, want the soft 404 deleted", got)
	}
	if got, want := e.watched(), []string{"/"}; !equalLists(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
}

// TestPagesJavaScriptApp: a home page that is a script with no links is
// watched alone, and the site's page says why.
func TestPagesJavaScriptApp(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.set("/", `<!doctype html><html><head><title>My app</title><script src="/app.js"></script></head><body><div id="root"></div><script>load("pages.json")</script></body></html>`)
	rep := e.follow("/")
	if got, want := e.watched(), []string{"/"}; !equalLists(got, want) {
		t.Fatalf("watched %q, want %q", got, want)
	}
	if w := strings.Join(rep.Run.Warnings, "\n"); !strings.Contains(w, "no links to follow; tidings watches this one page") {
		t.Errorf("site warnings %q", w)
	}
	if n := e.site.hit("/app.js"); n != 0 {
		t.Errorf("the script was fetched %d times", n)
	}
}

// TestPagesScope: an address with a path watches that directory only,
// one collection per shrine; a later address within it adds that page
// to the watched set, by hand, though no link leads there.
func TestPagesScope(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.set("/", page("Ann's home", `<a href="/shrine/">shrine</a> <a href="/blog/">blog</a>`))
	e.site.set("/blog/", page("Blog", `<p>Posts.</p>`))
	e.site.set("/shrine/", page("Cat shrine", `<a href="cats.html">cats</a> <a href="/">home</a> <a href="/blog/">blog</a> <a href="/shrine">itself</a>`))
	e.site.set("/shrine/cats.html", page("Cats", `<p>Tabby.</p> <a href="../">up</a>`))
	e.site.set("/shrine/secret.html", page("Secret", `<p>Not linked.</p>`))
	e.site.set("/dogs/", page("Dog shrine", `<a href="rex.html">Rex</a>`))
	e.site.set("/dogs/rex.html", page("Rex", `<p>Good dog.</p>`))
	rep := e.follow("/shrine/")
	if len(rep.Collections) != 1 || rep.Collections[0].Collection.Key != e.site.srv.URL+"/shrine/" {
		t.Fatalf("collections %+v", rep.Collections)
	}
	if got, want := e.watched(), []string{"/shrine/", "/shrine/cats.html"}; !equalLists(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
	// Discovery looks at the home page for other sources; the crawl
	// does not go there.
	if e.site.hit("/") > 1 || e.site.hit("/blog/") != 0 {
		t.Errorf("the crawl left its scope: %q", e.site.requests())
	}

	// A second shrine of the same site is a collection of its own.
	rep, err := e.h.Follow(t.Context(), e.site.srv.URL+"/dogs/")
	if err != nil && !strings.Contains(err.Error(), "already") {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range rep.Collections {
		keys = append(keys, strings.TrimPrefix(c.Collection.Key, e.site.srv.URL))
	}
	slices.Sort(keys)
	if want := []string{"/dogs/", "/shrine/"}; !equalLists(keys, want) {
		t.Errorf("collections %q, want %q", keys, want)
	}

	// A page no link reaches, added by its address.
	if _, err := e.h.Follow(t.Context(), e.site.srv.URL+"/shrine/secret.html"); err != nil && !strings.Contains(err.Error(), "already") {
		t.Fatal(err)
	}
	if got := e.watched(); !slices.Contains(got, "/shrine/secret.html") {
		t.Errorf("watched %q, want the page added by hand", got)
	}
	if got := e.changes(); !slices.Contains(got, "created /shrine/secret.html (seen)") {
		t.Errorf("changes %q: the page added by hand is no news", got)
	}
	// It stays watched, though nothing links it.
	e.site.set("/shrine/secret.html", page("Secret", `<p>Not linked, and changed.</p>`))
	e.harvest()
	if got := e.changes(); !slices.Contains(got, "updated /shrine/secret.html") {
		t.Errorf("changes %q, want the added page's update", got)
	}
}

// TestPagesCap: --watch-pages bounds the pages watched, with a warning.
func TestPagesCap(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{Sources: source.SettingsSet{Name: &Settings{WatchPages: 3}}})
	var links []string
	for i := range 10 {
		p := fmt.Sprintf("/p%d.html", i)
		links = append(links, `<a href="`+p+`">`+p+`</a>`)
		e.site.set(p, page(p, "<p>"+p+"</p>"))
	}
	e.site.set("/", page("Home", links...))
	rep := e.follow("/")
	if got := e.watched(); len(got) != 3 {
		t.Errorf("watched %q, want 3 pages", got)
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, "more pages than tidings watches (--watch-pages 3)") {
		t.Errorf("warnings %q", w)
	}
	n := 0
	for _, r := range e.site.requests() {
		if strings.HasPrefix(r, "/p") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d pages fetched beyond the home page, want 2: %q", n, e.site.requests())
	}
}

// TestPagesRobots: what robots.txt disallows is never fetched nor
// watched.
func TestPagesRobots(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.set("/robots.txt", "User-agent: *\nDisallow: /private/\n")
	e.site.set("/", page("Home", `<a href="/private/diary.html">diary</a> <a href="/public.html">public</a>`))
	e.site.set("/private/diary.html", page("Diary", "<p>Secret.</p>"))
	e.site.set("/public.html", page("Public", "<p>Hello.</p>"))
	e.follow("/")
	if got, want := e.watched(), []string{"/", "/public.html"}; !equalLists(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
	if n := e.site.hit("/private/diary.html"); n != 0 {
		t.Errorf("a disallowed page was fetched %d times", n)
	}
}

// fivePages serves a home page linking /p0.html to /p4.html, each a line
// of its own and then extra.
func (e *watchEnv) fivePages(extra string) {
	var links []string
	for i := range 5 {
		p := fmt.Sprintf("/p%d.html", i)
		links = append(links, `<a href="`+p+`">`+p+`</a>`)
		e.site.set(p, page(p, "<p>Page "+p+".</p>"+extra))
	}
	e.site.set("/", page("Home", links...))
}

// TestPagesReadInOneHarvest: --page-fetches bounds the pages read whole,
// not those that answer 304: with fewer page fetches than pages, one
// harvest still asks for every page, conditionally, and finds the page
// that changed, whichever it is. The changed page is asked for once more,
// conditionally on what was just read: it answers 304, an edit and not a
// widget (readAgain).
func TestPagesReadInOneHarvest(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: 2}})
	e.fivePages("")
	e.follow("/")
	if got := e.watched(); len(got) != 6 {
		t.Fatalf("watched %q: the first crawl is bounded by --watch-pages, not --page-fetches", got)
	}
	e.site.set("/p4.html", page("/p4.html", "<p>Page four, rewritten.</p>"))
	before := map[string]int{}
	for _, p := range append([]string{"/"}, "/p0.html", "/p1.html", "/p2.html", "/p3.html", "/p4.html") {
		before[p] = e.site.hit(p)
	}
	rep := e.harvest()
	if run := rep.Collections[0].Run; run.Documents != 7 || run.NotModified != 6 {
		t.Errorf("a harvest asked for %d pages, %d answered 304; want 7 and 6", run.Documents, run.NotModified)
	}
	for p, n := range before {
		want := 1
		if p == "/p4.html" {
			want = 2
		}
		if e.site.hit(p) != n+want {
			t.Errorf("%s read %d times in one harvest, want %d", p, e.site.hit(p)-n, want)
		}
	}
	if got := e.changes(); !slices.Contains(got, "updated /p4.html") {
		t.Errorf("changes %q, want the update found in the first harvest after it", got)
	}
}

// TestPagesReadInOneHarvestWithoutValidators: a server that sends no
// validators answers every read whole; a page sent again byte for byte
// gives its fetch back as a 304 does, so one harvest still reads every
// page and finds the one that changed, read twice to tell an edit from a
// widget.
func TestPagesReadInOneHarvestWithoutValidators(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: 2}})
	e.site.bare = true
	e.fivePages("")
	e.follow("/")
	e.site.set("/p4.html", page("/p4.html", "<p>Page four, rewritten.</p>"))
	before := e.site.hit("/p4.html")
	rep := e.harvest()
	if run := rep.Collections[0].Run; run.Documents != 7 || run.NotModified != 0 {
		t.Errorf("a harvest asked for %d pages, %d answered 304; want 7 and 0", run.Documents, run.NotModified)
	}
	if e.site.hit("/p4.html") != before+2 {
		t.Errorf("the changed page was read %d times in the harvest, want twice", e.site.hit("/p4.html")-before)
	}
	if got := e.changes(); !slices.Contains(got, "updated /p4.html") {
		t.Errorf("changes %q, want the update found in the first harvest after it", got)
	}
}

// TestResentPagesAreBoundedByTheirBytes: pages sent again whole give
// their fetches back only up to a bound in bytes, so a site of big pages
// without validators does not turn each harvest into a download of all
// of them.
func TestResentPagesAreBoundedByTheirBytes(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: 2}})
	e.site.bare = true
	e.fivePages("<p>" + strings.Repeat("Lorem ipsum dolor sit amet. ", 7000) + "</p>") // about 200 kB a page
	e.follow("/")
	rep := e.harvest()
	// The home page and one big page fit the bound of 2 × 160 KiB; the
	// next big page does not, and it and one more spend the two fetches.
	if run := rep.Collections[0].Run; run.Documents != 4 {
		t.Errorf("a harvest asked for %d pages, want 4", run.Documents)
	}
}

// TestPagesFailuresKeepPages: a page that fails to answer (500, 429) is
// kept and read again; only 404 and 410 delete one.
func TestPagesFailuresKeepPages(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.set("/", page("Home", `<a href="/a.html">a</a> <a href="/b.html">b</a> <a href="/c.html">c</a>`))
	for _, p := range []string{"/a.html", "/b.html", "/c.html"} {
		e.site.set(p, page(p, "<p>"+p+"</p>"))
	}
	e.follow("/")
	e.site.mu.Lock()
	e.site.codes["/a.html"] = http.StatusInternalServerError
	e.site.codes["/b.html"] = http.StatusGone
	e.site.mu.Unlock()
	rep := e.harvest()
	got := e.changes()
	if !slices.Contains(got, "deleted /b.html") || slices.Contains(got, "deleted /a.html") {
		t.Errorf("changes %q, want /b.html deleted and /a.html kept", got)
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, "/a.html returned 500") {
		t.Errorf("warnings %q", w)
	}
	if got, want := e.watched(), []string{"/", "/a.html", "/c.html"}; !equalLists(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
}

// TestPagesRedirects: a watched page that now redirects was renamed (the
// old address deleted, the new one created) or sent elsewhere; addresses
// that all redirect to one page are said to; and a site whose every page
// redirects away keeps its pages rather than deleting them all.
func TestPagesRedirects(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.set("/", page("Home", `<a href="/a.html">a</a> <a href="/b.html">b</a> <a href="/x1">x1</a> <a href="/x2">x2</a> <a href="/x3">x3</a>`))
	e.site.set("/a.html", page("A", "<p>A.</p>"))
	e.site.set("/b.html", page("B", "<p>B.</p>"))
	for _, p := range []string{"/x1", "/x2", "/x3"} {
		e.site.moved[p] = "/"
	}
	rep := e.follow("/")
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, "3 addresses redirect to "+e.site.srv.URL+"/ ") {
		t.Errorf("warnings %q", w)
	}
	if got, want := e.watched(), []string{"/", "/a.html", "/b.html"}; !equalLists(got, want) {
		t.Fatalf("watched %q, want %q", got, want)
	}

	e.site.mu.Lock()
	e.site.moved["/a.html"] = "/renamed.html"
	e.site.mu.Unlock()
	// Renamed as it was: the same text at the new address is still a
	// page, not another address of the one gone.
	e.site.set("/renamed.html", page("A", "<p>A.</p>"))
	e.harvest()
	got := e.changes()
	for _, want := range []string{"deleted /a.html", "created /renamed.html"} {
		if !slices.Contains(got, want) {
			t.Errorf("changes %q lack %q", got, want)
		}
	}

	// The whole site moves to another origin (another loopback server):
	// nothing is deleted.
	elsewhere := newWatchSite(t)
	elsewhere.set("/", page("New home", "<p>We moved.</p>"))
	before := len(e.changes())
	e.site.mu.Lock()
	for _, p := range []string{"/", "/b.html", "/renamed.html"} {
		e.site.moved[p] = elsewhere.srv.URL + "/"
	}
	e.site.mu.Unlock()
	rep = e.harvest()
	if after := e.changes(); len(after) != before {
		t.Errorf("a site that moved away gave changes: %q", after[before:])
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, "every page tidings read redirects elsewhere") {
		t.Errorf("warnings %q", w)
	}
}

// TestPagesFallbackPages: a site that answers every address it does not
// have with its home page (a single-page app's fallback) has its broken
// links left out, as are other addresses of one page.
func TestPagesFallbackPages(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	home := page("Home", `<p>Welcome.</p><a href="/about">about</a> <a href="/broken">broken</a> <a href="/also-broken/">also broken</a> <a href="/Home.html">home again</a>`)
	e.site.set("/", home)
	e.site.set("/about", page("About", "<p>About us.</p>"))
	for _, p := range []string{"/broken", "/also-broken/", "/Home.html"} {
		e.site.set(p, home)
	}
	e.follow("/")
	if got, want := e.watched(), []string{"/", "/about"}; !equalLists(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
}

func TestEmptyTextHash(t *testing.T) {
	if sum := sha256.Sum256(nil); hex.EncodeToString(sum[:]) != emptyTextHash {
		t.Errorf("emptyTextHash is not the SHA-256 of no text")
	}
}

// TestPagesSiteDown: a watched site that answers nothing is a failed
// harvest, with the reason, and loses no page.
func TestPagesSiteDown(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.set("/", page("Home", `<a href="/a.html">a</a>`))
	e.site.set("/a.html", page("A", "<p>A.</p>"))
	e.follow("/")
	e.site.mu.Lock()
	e.site.codes["/"] = http.StatusServiceUnavailable
	e.site.codes["/a.html"] = http.StatusServiceUnavailable
	e.site.mu.Unlock()
	rep := e.harvest()
	if err := rep.Collections[0].Run.Error; !strings.Contains(err, "returned 503") {
		t.Errorf("run error %q, want the site's 503", err)
	}
	if got, want := e.watched(), []string{"/", "/a.html"}; !equalLists(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
	if got := e.changes(); len(got) != 2 {
		t.Errorf("changes %q", got)
	}
}

// TestPagesTooLarge: a start page larger than tidings reads says so.
func TestPagesTooLarge(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{Snapshots: harvest.SnapshotSettings{MaxBody: 1 << 10}})
	e.site.set("/", page("Huge", strings.Repeat("<p>Too much text.</p>", 200)))
	rep, err := e.h.Follow(t.Context(), e.site.srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Collections[0].Run.Error; !strings.Contains(got, "larger than tidings reads for its text (1024 bytes, --snapshot-max-body)") {
		t.Errorf("run error %q", got)
	}
	if got := e.changes(); len(got) != 0 {
		t.Errorf("changes %q", got)
	}
}

// TestPagesOtherSpellings: where /about answers 404 and /about.html is
// the page, or /dogs answers with the home page (a fallback) and /dogs/
// is the page, the page is still found, whichever link comes first; one
// page under several spellings is fetched once.
func TestPagesOtherSpellings(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	home := page("Home", `<a href="/about">about</a> <a href="/about.html">about</a> <a href="/about/">about</a> `+
		`<a href="/cats/">cats</a> <a href="/cats/index.html">cats</a> <a href="/cats.html">cats</a> <a href="/dogs">dogs</a> <a href="/dogs/">dogs</a>`)
	e.site.set("/", home)
	e.site.set("/dogs", home)
	e.site.set("/about.html", page("About", "<p>About.</p>"))
	e.site.set("/cats/", page("Cats", "<p>Cats.</p>"))
	e.site.set("/dogs/", page("Dogs", "<p>Dogs.</p>"))
	e.follow("/")
	if got, want := e.watched(), []string{"/", "/about.html", "/cats/", "/dogs/"}; !equalLists(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
	if n := e.site.hit("/cats.html"); n != 0 {
		t.Errorf("another spelling of a page read was fetched %d times", n)
	}
}
