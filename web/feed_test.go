package web

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"tidings/accounts"
	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fixturesite"
)

// testBase is the public URL of the server under test.
const testBase = "http://tidings.test/"

// fixture is a fixture site harvested into a database on disk.
type fixture struct {
	site  *fixturesite.Site
	path  string // the database file
	store *db.DB
}

// newFixture starts a fixture site; prepare may change its documents
// before it is followed.
func newFixture(t testing.TB, prepare func(*fixturesite.Site)) *fixture {
	t.Helper()
	site := fixturesite.New(time.Now().UTC().Truncate(time.Second))
	t.Cleanup(site.Close)
	if prepare != nil {
		prepare(site)
	}
	f := &fixture{site: site, path: filepath.Join(t.TempDir(), "tidings.db")}
	f.open(t)
	if _, err := f.harvester().Follow(t.Context(), site.URL); err != nil {
		t.Fatalf("follow the fixture site: %v", err)
	}
	return f
}

// open (re)opens the database.
func (f *fixture) open(t testing.TB) {
	t.Helper()
	store, err := db.Open(t.Context(), f.path)
	if err != nil {
		t.Fatal(err)
	}
	f.store = store
	t.Cleanup(func() { store.Close() })
}

func (f *fixture) harvester() *harvest.Harvester {
	client := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-test"})
	return harvest.New(client, f.store, harvest.Options{})
}

// harvestAgain harvests the followed site once more.
func (f *fixture) harvestAgain(t *testing.T) {
	t.Helper()
	s, err := f.store.SiteByURL(t.Context(), f.site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.harvester().HarvestSite(t.Context(), s); err != nil {
		t.Fatalf("harvest again: %v", err)
	}
}

// url is a page of the fixture site.
func (f *fixture) url(path string) string { return f.site.URL + path }

// server builds the web server over the fixture's current database.
func (f *fixture) server(t *testing.T) http.Handler {
	t.Helper()
	s, err := New(f.store, Options{BaseURL: testBase})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

// changes lists every stored change, history included.
func (f *fixture) changes(t *testing.T) []db.ExportedChange {
	t.Helper()
	var out []db.ExportedChange
	err := f.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// serve runs one request through h.
func serve(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	return serveAs(t, h, path, "")
}

// serveAs runs one request through h with a session cookie, following a
// permanent redirect as a browser does: old numeric page addresses move
// to public ids.
func serveAs(t *testing.T, h http.Handler, path, session string) *httptest.ResponseRecorder {
	t.Helper()
	rec := serveOnce(t, h, path, session)
	if rec.Code == http.StatusMovedPermanently {
		u, err := url.Parse(rec.Header().Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		return serveOnce(t, h, u.RequestURI(), session)
	}
	return rec
}

// serveOnce runs one request through h with a session cookie.
func serveOnce(t *testing.T, h http.Handler, path, session string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if session != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: session})
	}
	h.ServeHTTP(rec, req)
	return rec
}

// signIn creates a user following every stored site and returns a session
// token for them.
func signIn(t *testing.T, store *db.DB, name string) string {
	t.Helper()
	u, err := store.CreateUser(t.Context(), name, "x", accounts.NewToken(), "")
	if err != nil {
		t.Fatal(err)
	}
	sites, err := store.Sites(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sites {
		if err := store.Follow(t.Context(), u.ID, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	token := accounts.NewToken()
	if err := store.CreateSession(t.Context(), accounts.HashToken(token), u.ID, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	return token
}

// feed fetches and parses a feed, failing unless it is served as Atom.
func feed(t *testing.T, h http.Handler, path string) *gofeed.Feed {
	t.Helper()
	rec := serve(t, h, path)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/atom+xml") {
		t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	f, err := gofeed.NewParser().Parse(rec.Body)
	if err != nil {
		t.Fatalf("GET %s: not a feed: %v", path, err)
	}
	if f.FeedType != "atom" {
		t.Errorf("GET %s: feed type %q, want atom", path, f.FeedType)
	}
	return f
}

// feedIDs returns the feed's own <id> and its entries' ids, in order.
func feedIDs(t *testing.T, h http.Handler, path string) []string {
	t.Helper()
	rec := serve(t, h, path)
	var doc struct {
		ID      string `xml:"id"`
		Entries []struct {
			ID string `xml:"id"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	ids := []string{doc.ID}
	for _, e := range doc.Entries {
		ids = append(ids, e.ID)
	}
	return ids
}

func titles(f *gofeed.Feed) []string {
	var out []string
	for _, it := range f.Items {
		out = append(out, it.Title)
	}
	return out
}

func TestCollectionFeed(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	h := fx.server(t)

	f := feed(t, h, public(t, fx.store, "/feeds/1.atom"))
	if f.Title != "My Shrine & Co — changes" {
		t.Errorf("title %q, want the describedby page's <title> %q", f.Title, "My Shrine & Co — changes")
	}
	if f.FeedLink != testBase+public(t, fx.store, "feeds/1.atom") || f.Link != fx.url("/shrine/") {
		t.Errorf("links: self %q, alternate %q", f.FeedLink, f.Link)
	}
	if len(f.Items) != 1 {
		t.Fatalf("%d entries, want the first harvest's: %q", len(f.Items), titles(f))
	}
	e := f.Items[0]
	if e.Title != "Now following My Shrine & Co: 3 pages" {
		t.Errorf("entry title %q", e.Title)
	}
	if !strings.HasPrefix(e.GUID, "tag:tidings.test,") || !strings.Contains(e.GUID, ":collection/"+strings.TrimPrefix(public(t, fx.store, "feeds/1"), "feeds/")+"/run/") {
		t.Errorf("entry id %q is not a tag URI of collection 1's run", e.GUID)
	}
	if e.Link != fx.url("/shrine/") {
		t.Errorf("entry link %q, want the collection %q", e.Link, fx.url("/shrine/"))
	}
	// Newest first, each page once, history (2020) included: the first
	// harvest's entry lists the latest changes whatever their age.
	last := -1
	for _, page := range []string{"links.html", "gallery.html", "old-news.html", "index.html"} {
		link := `<a href="` + fx.url("/shrine/"+page) + `">`
		i := strings.Index(e.Content, link)
		if i < 0 {
			t.Errorf("entry content lacks %s", link)
			continue
		}
		if i < last {
			t.Errorf("%s is listed out of order (newest first)", page)
		}
		last = i
	}
	if n := strings.Count(e.Content, "<li>"); n != 4 {
		t.Errorf("the first harvest's entry lists %d changes, want the latest of each of 4 pages:\n%s", n, e.Content)
	}

	g := feed(t, h, public(t, fx.store, "/feeds/2.atom"))
	if g.Title != fx.url("/gallery/")+" — changes" {
		t.Errorf("gallery feed title %q, want its URL (no describedby)", g.Title)
	}
	if got := titles(g); !slices.Equal(got, []string{"Now following " + fx.url("/gallery/") + ": 2 pages"}) {
		t.Errorf("gallery entries %q", got)
	}
	if len(g.Items) == 1 && (!strings.Contains(g.Items[0].Content, fx.url("/gallery/cats.html")) || !strings.Contains(g.Items[0].Content, "dogs.html")) {
		t.Errorf("the gallery's first entry should list cats.html and the older dogs.html:\n%s", g.Items[0].Content)
	}
}

func TestEntryIDsSurviveReopen(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	paths := []string{"/feeds/1.atom", "/feeds/2.atom", "/sites/1.atom", "/feeds/1.atom?entries=page", "/sites/1.atom?entries=page"}
	before := map[string][]string{}
	h := fx.server(t)
	for _, p := range paths {
		before[p] = feedIDs(t, h, public(t, fx.store, p))
	}
	if err := fx.store.Close(); err != nil {
		t.Fatal(err)
	}
	fx.open(t)
	h = fx.server(t)
	for _, p := range paths {
		after := feedIDs(t, h, public(t, fx.store, p))
		if len(after) < 2 {
			t.Errorf("%s has no entries after reopening", p)
		}
		if !slices.Equal(after, before[p]) {
			t.Errorf("%s ids changed across a restart:\nbefore %q\n after %q", p, before[p], after)
		}
	}
	// The feeds' own ids differ from one another.
	seen := map[string]string{}
	for _, p := range paths[:3] {
		id := before[p][0]
		if other, dup := seen[id]; dup {
			t.Errorf("%s and %s share the feed id %q", p, other, id)
		}
		seen[id] = p
	}
}

// changeKey identifies a change as the store's uniqueness key does.
type changeKey struct {
	collection int64
	url, kind  string
	at         time.Time
}

func keys(t *testing.T, changes []db.ExportedChange) map[changeKey]int {
	t.Helper()
	m := map[changeKey]int{}
	for _, c := range changes {
		k := changeKey{c.CollectionID, c.URL, c.Kind, c.Datetime}
		m[k]++
		if m[k] > 1 {
			t.Errorf("change stored twice: %+v", k)
		}
	}
	return m
}

func TestHarvestingAgainAddsNothing(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	h := fx.server(t)
	want := fx.changes(t)
	if len(want) != 8 {
		t.Fatalf("first harvest stored %d changes, want 8", len(want))
	}
	wantKeys := keys(t, want)
	wantIDs := feedIDs(t, h, public(t, fx.store, "/sites/1.atom"))

	check := func(step string) {
		t.Helper()
		got := fx.changes(t)
		if len(got) != len(want) {
			t.Errorf("%s: %d changes stored, want %d", step, len(got), len(want))
		}
		for k := range keys(t, got) {
			if wantKeys[k] == 0 {
				t.Errorf("%s: new change %+v", step, k)
			}
		}
		if ids := feedIDs(t, h, public(t, fx.store, "/sites/1.atom")); !slices.Equal(ids, wantIDs) {
			t.Errorf("%s: site feed entries changed:\n got %q\nwant %q", step, ids, wantIDs)
		}
	}

	fx.harvestAgain(t)
	check("second harvest")

	// Following again is a harvest too.
	if _, err := fx.harvester().Follow(t.Context(), fx.site.URL); !errors.Is(err, db.ErrAlreadyExists) {
		t.Errorf("following again: %v, want db.ErrAlreadyExists", err)
	}
	check("follow again")

	// The same change list under a new ETag is read again, entry by entry.
	current := getDoc(t, fx.url("/shrine/changes-current.xml"))
	fx.site.Set("/shrine/changes-current.xml", strings.Replace(current, "</urlset>", "<!-- touched --></urlset>", 1))
	fx.harvestAgain(t)
	check("changed ETag")

	// A genuinely new change makes one new digest, newest first.
	fx.site.Set("/shrine/changes-current.xml", strings.Replace(current, "</urlset>",
		`<url><loc>{{.Base}}/shrine/new.html</loc><rs:md change="created" datetime="{{ago "1h"}}"/></url></urlset>`, 1))
	fx.harvestAgain(t)
	if got := fx.changes(t); len(got) != len(want)+1 {
		t.Errorf("after a new change: %d changes stored, want %d", len(got), len(want)+1)
	}
	f := feed(t, h, public(t, fx.store, "/feeds/1.atom"))
	if got := titles(f); !slices.Equal(got, []string{"/shrine/new.html created on My Shrine & Co", "Now following My Shrine & Co: 3 pages"}) {
		t.Errorf("after a new change, entries %q", got)
	}
}

// TestRereadListsAddNoDuplicates re-reads change lists whose changes are
// already stored: after a failed list the watermark stays put, so the next
// harvest meets the same changes again.
func TestRereadListsAddNoDuplicates(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, func(s *fixturesite.Site) { s.Fail("/shrine/changes-current.xml", http.StatusInternalServerError) })
	h := fx.server(t)
	if got := len(fx.changes(t)); got != 6 {
		t.Fatalf("with the current list failing, %d changes stored, want 6", got)
	}
	col, err := fx.store.CollectionByID(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(col.LastError, "changes-current.xml returned 500") {
		t.Errorf("collection error %q does not name the failed list", col.LastError)
	}

	fx.site.Fail("/shrine/changes-current.xml", 0)
	for _, p := range []string{"/shrine/changes-2020.xml", "/shrine/changes-recent.xml"} {
		fx.site.Set(p, strings.Replace(getDoc(t, fx.url(p)), "</urlset>", "<!-- touched --></urlset>", 1))
	}
	before := fx.site.Requests("/shrine/changes-recent.xml.gz")
	fx.harvestAgain(t)
	if fx.site.Requests("/shrine/changes-recent.xml.gz") == before {
		t.Fatal("the second harvest did not read the older lists again")
	}
	got := fx.changes(t)
	keys(t, got)
	if len(got) != 8 {
		t.Errorf("%d changes stored, want 8", len(got))
	}
	f := feed(t, h, public(t, fx.store, "/feeds/1.atom"))
	// The first harvest failed in part: a digest of what it found. The
	// second, the first complete one, is the "now following" entry.
	if got := titles(f); !slices.Equal(got, []string{"Now following My Shrine & Co: 3 pages", "/shrine/old-news.html and /shrine/index.html changed on My Shrine & Co"}) {
		t.Errorf("entries %q, want one per harvest", got)
	}
	if len(f.Items) == 2 && (strings.Contains(f.Items[1].Content, "gallery.html") || !strings.Contains(f.Items[0].Content, "gallery.html")) {
		t.Errorf("the first digest should list only the changes of its harvest:\n%s", f.Items[1].Content)
	}
}

// getDoc GETs a fixture document.
func getDoc(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %d", url, err, resp.StatusCode)
	}
	return string(b)
}

func TestPageEntries(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	h := fx.server(t)

	tests := []struct {
		path  string
		pages []string // "Kind: path", newest first
	}{
		{"/feeds/1.atom?entries=page", []string{
			"Updated: /shrine/links.html", "Created: /shrine/gallery.html",
			"Deleted: /shrine/old-news.html", "Updated: /shrine/index.html"}},
		{"/feeds/2.atom?entries=page", []string{"Created: /gallery/cats.html"}},
		{"/sites/1.atom?entries=page", []string{
			"Updated: /shrine/links.html", "Created: /shrine/gallery.html", "Created: /gallery/cats.html",
			"Deleted: /shrine/old-news.html", "Updated: /shrine/index.html"}},
	}
	inFeed := 0
	for _, c := range fx.changes(t) {
		if !c.History {
			inFeed++
		}
	}
	if inFeed != 5 {
		t.Errorf("%d changes are in feeds, want 5", inFeed)
	}
	for _, tt := range tests {
		f := feed(t, h, public(t, fx.store, tt.path))
		if want := testBase + public(t, fx.store, strings.TrimPrefix(tt.path, "/")); f.FeedLink != want {
			t.Errorf("%s: self link %q, want %q", tt.path, f.FeedLink, want)
		}
		var want []string
		for _, p := range tt.pages {
			kind, path, _ := strings.Cut(p, ": ")
			want = append(want, kind+": "+fx.url(path))
		}
		// Each collection's first harvest has its entry beside the
		// changes', the same as in the digest feed.
		var got []string
		following := 0
		for _, it := range f.Items {
			if strings.HasPrefix(it.Title, "Now following ") {
				following++
				continue
			}
			got = append(got, it.Title)
		}
		if wantFollowing := strings.Count(tt.path, "sites/") + 1; following != wantFollowing {
			t.Errorf("%s: %d first-harvest entries, want %d", tt.path, following, wantFollowing)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: entries\n got %q\nwant %q", tt.path, got, want)
		}
		ids := map[string]bool{}
		for i, it := range f.Items {
			if i > 0 && it.UpdatedParsed.After(*f.Items[i-1].UpdatedParsed) {
				t.Errorf("%s: entry %d is newer than the one before it", tt.path, i)
			}
			if strings.HasPrefix(it.Title, "Now following ") {
				continue
			}
			kind, page, _ := strings.Cut(it.Title, ": ")
			if kind == "Deleted" {
				// The page is gone: the entry leads to its collection.
				page = fx.url("/shrine/")
			}
			if it.Link != page {
				t.Errorf("%s: entry %q links to %q", tt.path, it.Title, it.Link)
			}
			if !strings.Contains(it.GUID, "/change/") || ids[it.GUID] {
				t.Errorf("%s: entry id %q is not a distinct change id", tt.path, it.GUID)
			}
			ids[it.GUID] = true
		}
	}
}

func TestSiteFeedMergesCollections(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	f := feed(t, fx.server(t), public(t, fx.store, "/sites/1.atom"))
	if f.FeedLink != testBase+public(t, fx.store, "sites/1.atom") || f.Link != fx.url("/") {
		t.Errorf("links: self %q, alternate %q", f.FeedLink, f.Link)
	}
	got := titles(f)
	slices.Sort(got)
	want := []string{"Now following My Shrine & Co: 3 pages", "Now following " + fx.url("/gallery/") + ": 2 pages"}
	if !slices.Equal(got, want) {
		t.Errorf("site feed entries %q, want %q", got, want)
	}
	// The site's feed is a feed of its own: its entries' ids are its own,
	// not those of the same entries in the collections' feeds.
	for _, it := range f.Items {
		if !strings.Contains(it.GUID, ":site/"+strings.TrimPrefix(public(t, fx.store, "sites/1"), "sites/")+"/run/") {
			t.Errorf("entry id %q is not one of the site's feed", it.GUID)
		}
	}
}

func TestUnknownFeedsAre404(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	h := fx.server(t)
	known := public(t, fx.store, "/feeds/1")
	if rec := serve(t, h, known+".atom"); rec.Code != http.StatusOK {
		t.Fatalf("%s.atom: %d, want 200", known, rec.Code)
	}
	for _, p := range []string{
		"/feeds/99.atom", "/sites/99.atom", "/feeds/abc.atom", "/sites/abc.atom",
		"/feeds/0.atom", "/feeds/-1.atom", known, known + ".xml", known + ".rss2", "/feeds/.atom", "/feeds/.json", "/nowhere",
	} {
		rec := serve(t, h, p)
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, rec.Code)
		}
		if strings.Contains(rec.Body.String(), "<feed") {
			t.Errorf("%s: 404 with a feed body", p)
		}
	}
}

func TestIndexPage(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	rec := serveAs(t, fx.server(t), "/", signIn(t, fx.store, "ann"))
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	body := rec.Body.String()
	for _, want := range []string{
		`value="` + testBase + public(t, fx.store, `feeds/1.atom"`), `value="` + testBase + public(t, fx.store, `feeds/2.atom"`),
		fx.url("/"), "My Shrine &amp; Co",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("index page lacks %q", want)
		}
	}
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("index page CSP %q", csp)
	}
}

func TestIndexPageWithNothingFollowed(t *testing.T) {
	t.Parallel()
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, err := New(store, Options{BaseURL: testBase})
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(t, s.Handler(), "/")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Sign in") {
		t.Errorf("GET / signed out: %d\n%s", rec.Code, rec.Body)
	}
	rec = serveAs(t, s.Handler(), "/", signIn(t, store, "ann"))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "You follow no site yet") {
		t.Errorf("GET / with nothing followed: %d\n%s", rec.Code, rec.Body)
	}
}

func TestHostileTitleIsEscaped(t *testing.T) {
	t.Parallel()
	const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)> & Co`
	fx := newFixture(t, func(s *fixturesite.Site) {
		s.Set("/shrine/about.html", "<!doctype html><html><head><title>"+hostile+"</title></head><body></body></html>")
	})
	h := fx.server(t)

	body := serveAs(t, h, "/", signIn(t, fx.store, "ann")).Body.String()
	escaped := "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; &amp; Co"
	if !strings.Contains(body, escaped) {
		t.Errorf("index page lacks the escaped title %q:\n%s", escaped, body)
	}
	// The page's own script is a <script src>; the title's would be a
	// bare <script>.
	for _, raw := range []string{"<script>", "<img"} {
		if strings.Contains(body, raw) {
			t.Errorf("index page contains raw %q:\n%s", raw, body)
		}
	}

	rec := serve(t, h, public(t, fx.store, "/feeds/1.atom"))
	if strings.Contains(rec.Body.String(), "<script") {
		t.Errorf("feed contains a raw <script>:\n%s", rec.Body)
	}
	f := feed(t, h, public(t, fx.store, "/feeds/1.atom"))
	if f.Title != hostile+" — changes" {
		t.Errorf("feed title %q, want the page's title as text %q", f.Title, hostile)
	}
}

// TestConcurrentRequests renders every page at once, for the race detector.
func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	h := fx.server(t)
	paths := []string{"/", public(t, fx.store, "/feeds/1.atom"), public(t, fx.store, "/feeds/2.atom"), public(t, fx.store, "/sites/1.atom"),
		public(t, fx.store, "/feeds/1.atom?entries=page"), "/feeds/99.atom"}
	var wg sync.WaitGroup
	codes := make([]int, 4*len(paths))
	for i := range codes {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, paths[i%len(paths)], nil))
			codes[i] = rec.Code
		})
	}
	wg.Wait()
	for i, code := range codes {
		want := http.StatusOK
		if paths[i%len(paths)] == "/feeds/99.atom" {
			want = http.StatusNotFound
		}
		if code != want {
			t.Errorf("%s: %d, want %d", paths[i%len(paths)], code, want)
		}
	}
}

func TestSitePageShowsAFailingStreak(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	session := signIn(t, fx.store, "ann")
	fx.site.Fail("/.well-known/resourcesync", http.StatusInternalServerError)
	fx.site.Fail("/shrine/capabilitylist.xml", http.StatusInternalServerError)
	fx.site.Fail("/gallery/caps.xml", http.StatusInternalServerError)
	fx.harvestAgain(t)
	page := serveAs(t, fx.server(t), public(t, fx.store, "/site/1"), session).Body.String()
	if !strings.Contains(page, `id="failing">Failing since`) || !strings.Contains(page, "next try") {
		t.Errorf("the site page does not say since when it fails and when it is tried next:\n%s", page)
	}
}
