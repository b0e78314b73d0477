package harvest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/internal/changetest"
	"tidings/pagetext"
)

// pageSite serves a ResourceSync change list and the pages it names, with
// ETags, counting what each path was asked and answered.
type pageSite struct {
	srv     *httptest.Server
	mu      sync.Mutex
	pages   map[string]servedPage
	changes []string // <url> elements of the change list
	// other, when set, are those of a second collection's change list.
	other   []string
	hits    map[string]int
	answers map[string][]int
	// bare: pages are served without validators.
	bare bool
}

type servedPage struct {
	contentType string
	body        string
}

const rsXMLNS = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`

func newPageSite(t *testing.T) *pageSite {
	t.Helper()
	s := &pageSite{pages: map[string]servedPage{}, hits: map[string]int{}, answers: map[string][]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *pageSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p := r.URL.Path
	s.hits[p]++
	page, ok := s.pages[p]
	switch p {
	case "/.well-known/resourcesync":
		caps := `<url><loc>` + s.srv.URL + `/caps.xml</loc><rs:md capability="capabilitylist"/></url>`
		if len(s.other) > 0 {
			caps += `<url><loc>` + s.srv.URL + `/caps2.xml</loc><rs:md capability="capabilitylist"/></url>`
		}
		page, ok = servedPage{"application/xml", `<urlset ` + rsXMLNS + `><rs:md capability="description"/>` + caps + `</urlset>`}, true
	case "/caps2.xml":
		page, ok = servedPage{"application/xml", `<urlset ` + rsXMLNS + `><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="` + s.srv.URL + `/other/"/>
<url><loc>` + s.srv.URL + `/changes2.xml</loc><rs:md capability="changelist"/></url></urlset>`}, true
	case "/changes2.xml":
		page, ok = servedPage{"application/xml", `<urlset ` + rsXMLNS + `><rs:md capability="changelist"/>` + strings.Join(s.other, "") + `</urlset>`}, true
	case "/caps.xml":
		page, ok = servedPage{"application/xml", `<urlset ` + rsXMLNS + `><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="` + s.srv.URL + `/"/>
<url><loc>` + s.srv.URL + `/changes.xml</loc><rs:md capability="changelist"/></url></urlset>`}, true
	case "/changes.xml":
		page, ok = servedPage{"application/xml", `<urlset ` + rsXMLNS + `><rs:md capability="changelist"/>` + strings.Join(s.changes, "") + `</urlset>`}, true
	}
	code := http.StatusOK
	defer func() { s.answers[p] = append(s.answers[p], code); s.mu.Unlock() }()
	switch {
	case p == "/loop.html":
		code = http.StatusFound
		http.Redirect(w, r, "/loop.html", code)
		return
	case !ok:
		code = http.StatusNotFound
		http.NotFound(w, r)
		return
	}
	etag := fmt.Sprintf(`"%x"`, sha256.Sum256([]byte(page.body)))
	if !s.bare {
		w.Header().Set("ETag", etag)
	}
	w.Header().Set("Content-Type", page.contentType)
	if !s.bare && r.Header.Get("If-None-Match") == etag {
		code = http.StatusNotModified
		w.WriteHeader(code)
		return
	}
	w.Write([]byte(page.body))
}

func (s *pageSite) html(path, title string, body ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = servedPage{"text/html; charset=utf-8", "<!doctype html><html><head><title>" + title + "</title></head><body>" +
		strings.Join(body, "") + "</body></html>"}
}

func (s *pageSite) set(path, contentType, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = servedPage{contentType, body}
}

// change adds an entry to the change list.
func (s *pageSite) change(path, kind string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes = append(s.changes, `<url><loc>`+s.srv.URL+path+`</loc><rs:md change="`+kind+`" datetime="`+at.UTC().Format(time.RFC3339)+`"/></url>`)
}

// changeOther adds an entry to the second collection's change list.
func (s *pageSite) changeOther(path, kind string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.other = append(s.other, `<url><loc>`+s.srv.URL+path+`</loc><rs:md change="`+kind+`" datetime="`+at.UTC().Format(time.RFC3339)+`"/></url>`)
}

func (s *pageSite) hit(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// pageHits counts the requests for pages, not for the change information.
func (s *pageSite) pageHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, k := range s.hits {
		if strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".png") {
			n += k
		}
	}
	return n
}

type snapEnv struct {
	t     *testing.T
	site  *pageSite
	store *db.DB
	h     *Harvester
}

func newSnapEnv(t *testing.T, s SnapshotSettings) *snapEnv {
	t.Helper()
	if s == (SnapshotSettings{}) {
		s.PageFetches = DefaultPageFetches
	}
	store, h := testHarvester(t, Options{Snapshots: s})
	return &snapEnv{t: t, site: newPageSite(t), store: store, h: h}
}

func (e *snapEnv) follow() *SiteReport { e.t.Helper(); return followURL(e.t, e.h, e.site.srv.URL+"/") }
func (e *snapEnv) harvest() *SiteReport {
	e.t.Helper()
	return harvestURL(e.t, e.store, e.h, e.site.srv.URL+"/")
}

// latest returns each page's stored changes, in order of time, by path.
func (e *snapEnv) latest() map[string][]db.ExportedChange {
	e.t.Helper()
	out := map[string][]db.ExportedChange{}
	err := e.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		p := strings.TrimPrefix(c.URL, e.site.srv.URL)
		out[p] = append(out[p], c)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// TestSnapshotsSayWhatChanged: a site served in two versions. Each change
// says what its page's text gained and lost, titled by the page.
func TestSnapshotsSayWhatChanged(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{})
	now := time.Now()
	s := e.site
	s.html("/a.html", "Cats of the Month", "<p>Tabby is the cat of May.</p><p>Nothing else.</p>")
	s.html("/b.html", "Links", "<ul><li>One link</li><li>Two links</li></ul>")
	s.html("/c.html", "Old Page", "<p>An old page that never changes.</p>")
	s.html("/gone.html", "Gone Soon", "<p>This page will go.</p>")
	for _, p := range []string{"/a.html", "/b.html", "/gone.html"} {
		s.change(p, "created", now.Add(-5*time.Hour))
	}
	s.change("/c.html", "updated", now.Add(-5*time.Hour))
	if w := warningsOf(e.follow()); len(w) > 0 {
		t.Fatalf("first harvest warnings %q", w)
	}
	got := e.latest()
	changetest.Text(t, got["/a.html"][0], "Cats of the Month", db.TextChanged, nil, []string{"Tabby is the cat of May.", "Nothing else."})
	// Updated, and never read before: nothing to compare with.
	changetest.Text(t, got["/c.html"][0], "Old Page", db.TextUnknown, nil, nil)

	// The second version: a's text changed twice, b's markup only, c was
	// touched and is answered 304, new.html is created, gone.html deleted.
	s.html("/a.html", "Cats of the Month", "<p>Ginger is the cat of June.</p><p>Nothing else.</p><p>Vote now!</p>")
	s.html("/b.html", "Links", `<div class="links"><ul><li><b>One</b> link</li><li>Two links</li></ul></div>`)
	s.html("/new.html", "A New Page", "<p>Hello, world.</p>")
	s.change("/a.html", "updated", now.Add(-2*time.Hour))
	s.change("/a.html", "updated", now.Add(-time.Hour))
	s.change("/b.html", "updated", now.Add(-time.Hour))
	s.change("/c.html", "updated", now.Add(-time.Hour))
	s.change("/new.html", "created", now.Add(-time.Hour))
	s.change("/gone.html", "deleted", now.Add(-time.Hour))
	hitsBefore := map[string]int{}
	for _, p := range []string{"/a.html", "/b.html", "/c.html", "/gone.html", "/new.html"} {
		hitsBefore[p] = s.hit(p)
	}
	if w := warningsOf(e.harvest()); len(w) > 0 {
		t.Fatalf("second harvest warnings %q", w)
	}
	got = e.latest()
	a := got["/a.html"]
	if len(a) != 3 {
		t.Fatalf("a.html changes %d, want 3", len(a))
	}
	// Two changes of one page in one harvest: one fetch, the diff on the
	// newer; both are titled.
	changetest.Text(t, a[1], "Cats of the Month", db.TextUnknown, nil, nil)
	changetest.Text(t, a[2], "Cats of the Month", db.TextChanged, []string{"Tabby is the cat of May."}, []string{"Ginger is the cat of June.", "Vote now!"})
	changetest.Text(t, got["/b.html"][1], "Links", db.TextUnchanged, nil, nil)
	changetest.Text(t, got["/c.html"][1], "Old Page", db.TextUnchanged, nil, nil)
	changetest.Text(t, got["/new.html"][0], "A New Page", db.TextChanged, nil, []string{"Hello, world."})
	changetest.Text(t, got["/gone.html"][1], "Gone Soon", db.TextUnknown, nil, nil)
	for p, want := range map[string]int{"/a.html": 1, "/b.html": 1, "/c.html": 1, "/gone.html": 0, "/new.html": 1} {
		if n := s.hit(p) - hitsBefore[p]; n != want {
			t.Errorf("%s fetched %d times in the second harvest, want %d", p, n, want)
		}
	}
	s.mu.Lock()
	cAnswers := s.answers["/c.html"]
	s.mu.Unlock()
	if !reflect.DeepEqual(cAnswers, []int{200, 304}) {
		t.Errorf("c.html answered %v, want a conditional re-fetch answered 304", cAnswers)
	}
}

// TestSnapshotsBudget: at most PageFetches pages per site harvest, newest
// changes first; the others keep their changes without a diff.
func TestSnapshotsBudget(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{PageFetches: 2})
	now := time.Now()
	for i := range 5 {
		p := fmt.Sprintf("/p%d.html", i)
		e.site.html(p, fmt.Sprintf("Page %d", i), fmt.Sprintf("<p>Text %d.</p>", i))
		e.site.change(p, "created", now.Add(time.Duration(i-10)*time.Hour))
	}
	e.follow()
	if n := e.site.pageHits(); n != 2 {
		t.Errorf("%d pages fetched, want the budget of 2", n)
	}
	got := e.latest()
	for i := range 5 {
		p := fmt.Sprintf("/p%d.html", i)
		if i >= 3 {
			changetest.Text(t, got[p][0], fmt.Sprintf("Page %d", i), db.TextChanged, nil, []string{fmt.Sprintf("Text %d.", i)})
			continue
		}
		changetest.Text(t, got[p][0], "", db.TextUnknown, nil, nil)
		if e.site.hit(p) != 0 {
			t.Errorf("%s fetched, past the budget", p)
		}
	}
}

// TestSnapshotsPastTheBudgetAreQueued: the pages past the budget are
// fetched at later harvests, before the harvest's own changes' pages, and
// fill their changes in, without a new change; a page changed again before
// its turn is read for its later change instead.
func TestSnapshotsPastTheBudgetAreQueued(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{PageFetches: 2})
	now := time.Now()
	page := func(i int) string { return fmt.Sprintf("/p%d.html", i) }
	for i := range 5 {
		e.site.html(page(i), fmt.Sprintf("Page %d", i), fmt.Sprintf("<p>Text %d.</p>", i))
		e.site.change(page(i), "created", now.Add(time.Duration(i-10)*time.Hour))
	}
	e.follow()
	fetched := func(want ...int) {
		t.Helper()
		for i := range 5 {
			n, w := e.site.hit(page(i)), 0
			if slices.Contains(want, i) {
				w = 1
			}
			if n != w {
				t.Errorf("%s fetched %d times, want %d", page(i), n, w)
			}
		}
	}
	fetched(3, 4)
	got := e.latest()
	changetest.Text(t, got[page(2)][0], "", db.TextUnknown, nil, nil)

	// p1 is created anew before its turn; p2 and p0 are still due.
	e.site.html(page(1), "Page 1", "<p>Text 1.</p><p>More.</p>")
	e.site.change(page(1), "updated", now.Add(-time.Hour))
	if w := warningsOf(e.harvest()); len(w) > 0 {
		t.Fatalf("second harvest warnings %q", w)
	}
	fetched(0, 2, 3, 4)
	got = e.latest()
	changetest.Text(t, got[page(2)][0], "Page 2", db.TextChanged, nil, []string{"Text 2."})
	changetest.Text(t, got[page(0)][0], "Page 0", db.TextChanged, nil, []string{"Text 0."})
	if len(got[page(1)]) != 2 {
		t.Fatalf("p1 has %d changes, want 2", len(got[page(1)]))
	}
	changetest.Text(t, got[page(1)][1], "", db.TextUnknown, nil, nil) // past the budget again

	e.harvest()
	fetched(0, 1, 2, 3, 4)
	got = e.latest()
	// Read for its update, with no earlier text to compare: titled only.
	changetest.Text(t, got[page(1)][1], "Page 1", db.TextUnknown, nil, nil)
	changetest.Text(t, got[page(1)][0], "", db.TextUnknown, nil, nil)
	e.harvest()
	fetched(0, 1, 2, 3, 4)
	total := 0
	for _, list := range e.latest() {
		total += len(list)
	}
	if total != 6 {
		t.Errorf("%d changes stored, want the 6 the site listed", total)
	}
}

// TestSnapshotsQueueIsBounded: a site's queue holds what ten harvests'
// budgets read, the pages of the latest changes.
func TestSnapshotsQueueIsBounded(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{PageFetches: 1})
	now := time.Now()
	page := func(i int) string { return fmt.Sprintf("/p%02d.html", i) }
	n := queuedHarvests + 3
	for i := range n {
		e.site.html(page(i), fmt.Sprintf("Page %d", i), fmt.Sprintf("<p>Text %d.</p>", i))
		e.site.change(page(i), "created", now.Add(time.Duration(i-40)*time.Hour))
	}
	e.follow()
	for range queuedHarvests + 2 {
		e.harvest()
	}
	for i := range n {
		want := 1
		if i < n-1-queuedHarvests {
			want = 0
		}
		if got := e.site.hit(page(i)); got != want {
			t.Errorf("%s fetched %d times, want %d", page(i), got, want)
		}
	}
}

// TestSnapshotsReadPagesTheSameWay: a page whose article holds about a
// third of its text is read as its article again when a new version tips
// it under the threshold, so its diff is the edit, not the whole page.
func TestSnapshotsReadPagesTheSameWay(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{})
	now := time.Now()
	links := func(n int) string {
		return `<div id="links"><span>` + strings.Repeat(`<a href="/a">A cat shrine</a> · <a href="/b">Dogs</a><br>`, n) + `</span></div>`
	}
	intro := func(s string) string {
		return `<div id="intro"><div><div><p>` + strings.Repeat("These are the sites I visit every day, and so should you. ", 7) + s + `</p></div></div></div>`
	}
	e.site.html("/links.html", "Links", intro("Enjoy."), links(30))
	e.site.change("/links.html", "created", now.Add(-2*time.Hour))
	e.follow()
	e.site.html("/links.html", "Links", intro("Enjoy them."), links(50))
	e.site.change("/links.html", "updated", now.Add(-time.Hour))
	e.harvest()
	got := e.latest()["/links.html"]
	if len(got) != 2 {
		t.Fatalf("%d changes, want 2", len(got))
	}
	del, ins := changetest.Diff(t, got[1])
	if len(del) != 1 || len(ins) != 1 || !strings.HasSuffix(ins[0], "Enjoy them.") {
		t.Errorf("diff of a one-word edit: removed %q, added %q", del, ins)
	}
	site, err := e.store.SiteByURL(context.Background(), e.site.srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := e.store.Snapshots(context.Background(), site.ID, []string{e.site.srv.URL + "/links.html"})
	if err != nil || snaps[e.site.srv.URL+"/links.html"].Method != pagetext.MethodArticle {
		t.Errorf("stored snapshot %+v, %v; want read as its article", snaps, err)
	}
}

// TestSnapshotsWithoutValidators: a page served again byte for byte by a
// server without validators keeps its snapshot, read again; one changed
// is compared as any other.
func TestSnapshotsWithoutValidators(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{})
	e.site.bare = true
	now := time.Now()
	e.site.html("/same.html", "Same", "<p>Never changes.</p>")
	e.site.html("/edit.html", "Edit", "<p>First.</p>")
	e.site.change("/same.html", "created", now.Add(-3*time.Hour))
	e.site.change("/edit.html", "created", now.Add(-3*time.Hour))
	e.follow()
	e.site.html("/edit.html", "Edit", "<p>Second.</p>")
	e.site.change("/same.html", "updated", now.Add(-time.Hour))
	e.site.change("/edit.html", "updated", now.Add(-time.Hour))
	rep := e.harvest()
	got := e.latest()
	changetest.Text(t, got["/same.html"][1], "Same", db.TextUnchanged, nil, nil)
	changetest.Text(t, got["/edit.html"][1], "Edit", db.TextChanged, []string{"First."}, []string{"Second."})
	snaps, err := e.store.Snapshots(context.Background(), rep.Site.ID, []string{e.site.srv.URL + "/same.html"})
	if err != nil {
		t.Fatal(err)
	}
	same := snaps[e.site.srv.URL+"/same.html"]
	text, err := pagetext.Decompress(same.Text, pagetext.DefaultMaxText)
	if err != nil || text != "Never changes." || same.Method == "" || same.ETag != "" || len(same.ContentHash) != 2*contentHashBytes ||
		same.ContentType != "text/html" {
		t.Errorf("snapshot read again: %+v, text %q, %v", same, text, err)
	}
	if e.site.hit("/same.html") != 2 {
		t.Errorf("same.html fetched %d times, want 2", e.site.hit("/same.html"))
	}
}

// TestSnapshotsOff: --no-snapshots fetches no page.
func TestSnapshotsOff(t *testing.T) {
	// A budget is set, so that only Off keeps the page unread.
	e := newSnapEnv(t, SnapshotSettings{Off: true, PageFetches: DefaultPageFetches})
	e.site.html("/a.html", "A", "<p>Text.</p>")
	e.site.change("/a.html", "created", time.Now().Add(-time.Hour))
	e.follow()
	if n := e.site.pageHits(); n != 0 {
		t.Errorf("%d pages fetched with snapshots off", n)
	}
	changetest.Text(t, e.latest()["/a.html"][0], "", db.TextUnknown, nil, nil)
}

// TestSnapshotsOfBadPages: a page that cannot be read keeps its change,
// with a warning, and the harvest does not fail.
func TestSnapshotsOfBadPages(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{PageFetches: 10, MaxBody: 4 << 20})
	now := time.Now().Add(-time.Hour)
	e.site.set("/pic.png", "image/png", "\x89PNG\r\n\x1a\nnot really an image")
	e.site.set("/big.html", "text/html", "<p>"+strings.Repeat("big words ", 500_000)+"</p>")
	e.site.html("/fine.html", "Fine", "<p>Fine.</p>")
	for _, p := range []string{"/missing.html", "/pic.png", "/loop.html", "/big.html", "/fine.html"} {
		e.site.change(p, "created", now)
	}
	rep := e.follow()
	w := strings.Join(warningsOf(rep), "\n")
	for _, want := range []string{"/missing.html returned 404", "/loop.html", "/big.html is larger than tidings reads for its text"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q, want one with %q", w, want)
		}
	}
	if strings.Contains(w, "error:") || strings.Contains(w, "pic.png") {
		t.Errorf("warnings %q: an image is no failure, nor is any page the harvest's", w)
	}
	got := e.latest()
	for _, p := range []string{"/missing.html", "/pic.png", "/loop.html", "/big.html"} {
		if len(got[p]) != 1 {
			t.Fatalf("%s: %d changes, want its change kept", p, len(got[p]))
		}
		changetest.Text(t, got[p][0], "", db.TextUnknown, nil, nil)
	}
	changetest.Text(t, got["/fine.html"][0], "Fine", db.TextChanged, nil, []string{"Fine."})
	siteID := rep.Site.ID
	snaps, err := e.store.Snapshots(context.Background(), siteID, []string{
		e.site.srv.URL + "/pic.png", e.site.srv.URL + "/missing.html", e.site.srv.URL + "/big.html", e.site.srv.URL + "/loop.html"})
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 1 {
		t.Errorf("%d snapshots stored, want the image's alone", len(snaps))
	}
	if pic := snaps[e.site.srv.URL+"/pic.png"]; pic.ContentType != "image/png" || pic.Text != nil || pic.ContentHash == "" || pic.Size == 0 {
		t.Errorf("image snapshot %+v, want its type, size and hash, and no text", pic)
	}
}

// TestSnapshotsSharedAcrossCollections: a page two collections of a site
// name is fetched once per site harvest, and both changes carry its diff.
func TestSnapshotsSharedAcrossCollections(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{})
	now := time.Now()
	e.site.html("/both.html", "Both", "<p>In two collections.</p>")
	e.site.change("/both.html", "created", now.Add(-time.Hour))
	e.site.changeOther("/both.html", "created", now.Add(-2*time.Hour))
	rep := e.follow()
	if len(rep.Collections) != 2 {
		t.Fatalf("%d collections, want 2", len(rep.Collections))
	}
	if n := e.site.hit("/both.html"); n != 1 {
		t.Errorf("both.html fetched %d times in one site harvest, want once", n)
	}
	got := e.latest()["/both.html"]
	if len(got) != 2 {
		t.Fatalf("%d changes, want one per collection", len(got))
	}
	for _, c := range got {
		changetest.Text(t, c, "Both", db.TextChanged, nil, []string{"In two collections."})
	}
}

// TestChangesStoredAtTheWatermarkAreNotFetchedAgain: a harvest reads
// again from the last processing time, and a change stored at that very
// time must not be recorded again, nor its page fetched for a snapshot.
func TestChangesStoredAtTheWatermarkAreNotFetchedAgain(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{})
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	e.site.html("/a.html", "A", "<p>First.</p>")
	e.site.change("/a.html", "created", at)
	e.follow()
	if n := e.site.hit("/a.html"); n != 1 {
		t.Fatalf("the follow fetched /a.html %d times, want once", n)
	}
	e.site.html("/b.html", "B", "<p>Second.</p>")
	e.site.change("/b.html", "created", at) // published later, dated the same instant
	rep := e.harvest()
	if got := rep.Changes(); got != 1 {
		t.Errorf("second harvest: %d new changes, want 1 (b.html)", got)
	}
	if n := e.site.hit("/a.html"); n != 1 {
		t.Errorf("/a.html, whose change at the last processing time is stored, was fetched %d times in all, want once", n)
	}
}

// warningsOf lists a site harvest's warnings, each collection's error
// among them as "error: …".
func warningsOf(rep *SiteReport) []string {
	var w []string
	for _, c := range rep.Collections {
		w = append(w, c.Run.Warnings...)
		if c.Run.Error != "" {
			w = append(w, "error: "+c.Run.Error)
		}
	}
	return w
}

// TestFirstUpdateAfterAFollowHasItsDiff: a page the follow records as
// already seen (its change older than the first harvest's window) is read
// then for a baseline, so the first update after the follow says what
// changed rather than only "updated".
func TestFirstUpdateAfterAFollowHasItsDiff(t *testing.T) {
	e := newSnapEnv(t, SnapshotSettings{PageFetches: DefaultPageFetches})
	now := time.Now()
	e.site.html("/old.html", "Old Page", "<p>The first text.</p>")
	e.site.change("/old.html", "updated", now.Add(-60*24*time.Hour))
	e.follow()
	if n := e.site.hit("/old.html"); n != 1 {
		t.Errorf("the follow read the page seen already %d times, want once for its baseline", n)
	}
	e.site.html("/old.html", "Old Page", "<p>The second text.</p>")
	e.site.change("/old.html", "updated", now.Add(-time.Hour))
	e.harvest()
	got := e.latest()["/old.html"]
	if len(got) != 2 {
		t.Fatalf("%d changes of old.html, want the one seen and the update", len(got))
	}
	changetest.Text(t, got[1], "Old Page", db.TextChanged, []string{"The first text."}, []string{"The second text."})
}
