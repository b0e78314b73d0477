package sitemap

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/pgtest"
	"tidings/internal/sitemapsite"
)

// publishResourceSync makes the fixture site publish a ResourceSync
// change list naming one change of /a/.
func publishResourceSync(s *sitemapsite.Site) {
	s.Raw("/.well-known/resourcesync", `<urlset `+rsXMLNS+`><rs:md capability="description"/>
<url><loc>{root}/caps.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`)
	s.Raw("/caps.xml", `<urlset `+rsXMLNS+`><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="{root}/"/>
<url><loc>{root}/changes.xml</loc><rs:md capability="changelist"/></url></urlset>`)
	s.Raw("/changes.xml", `<urlset `+rsXMLNS+`><rs:md capability="changelist"/>
<url><loc>{root}/a/</loc><rs:md change="updated" datetime="2026-11-19T08:00:00Z"/></url></urlset>`)
}

// TestSitemapTiers: a site that publishes ResourceSync and a plain
// sitemap is followed by ResourceSync only; a site followed by its
// sitemap that later publishes ResourceSync is followed by it from the
// next full discovery on.
func TestSitemapTiers(t *testing.T) {
	both := newSMEnv(t, harvest.SnapshotSettings{})
	both.Site.Version("", sitemapShrine())
	publishResourceSync(both.Site)
	harvesttest.Follow(t, both.H, both.Site.URL("/"))
	if got := harvesttest.ActiveSources(t, both.Store); !slices.Equal(got, []string{"resourcesync"}) {
		t.Errorf("a site with ResourceSync and a sitemap is followed by %v", got)
	}
	if both.Site.Hits("/b/") > 0 {
		t.Error("the sitemap's pages were read although ResourceSync was found")
	}

	later := newSMEnv(t, harvest.SnapshotSettings{}, func(o *harvest.Options) { o.DiscoveryInterval = time.Hour })
	later.Site.Version("", sitemapShrine())
	harvesttest.Follow(t, later.H, later.Site.URL("/"))
	if got := harvesttest.ActiveSources(t, later.Store); !slices.Equal(got, []string{Name}) {
		t.Fatalf("a sitemap-only site is followed by %v", got)
	}
	publishResourceSync(later.Site)
	later.Harvest()
	if got := harvesttest.ActiveSources(t, later.Store); !slices.Equal(got, []string{"resourcesync"}) {
		t.Errorf("after the site published ResourceSync it is followed by %v", got)
	}
}

// TestSitemapBudgetRotates: pages without dates are re-read within the
// budget, those checked longest ago first, so each is seen every few
// harvests.
func TestSitemapBudgetRotates(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{PageFetches: 2})
	pages := map[string]sitemapsite.Page{}
	for _, p := range []string{"/p1/", "/p2/", "/p3/", "/p4/"} {
		pages[p] = sitemapsite.Page{Title: p, Text: "text of " + p}
	}
	e.Site.Version("", pages)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	e.Harvest()
	for p := range pages {
		if e.Site.Hits(p) != 1 {
			t.Errorf("after two harvests with a budget of two, %s was read %d times; want each page once", p, e.Site.Hits(p))
		}
	}
	pages["/p1/"] = sitemapsite.Page{Title: "/p1/", Text: "new text of /p1/"}
	e.Harvest()
	if got := e.Changes(); !slices.Equal(got, []string{"updated /p1/"}) {
		t.Errorf("changes %v, want the edit of /p1/, found when its turn came", got)
	}
}

// TestSitemapNoSnapshots: with snapshots off no page is read; a moved
// lastmod is trusted, and a page missing from the sitemap is deleted.
func TestSitemapNoSnapshots(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{Off: true})
	pages := map[string]sitemapsite.Page{
		"/a/": {Title: "A", Text: "a", Lastmod: "2026-09-01"},
		"/b/": {Title: "B", Text: "b", Lastmod: "2026-09-02"},
		"/c/": {Title: "C", Text: "c"},
	}
	e.Site.Version("", pages)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	pages["/a/"] = sitemapsite.Page{Title: "A", Text: "a", Lastmod: "2026-11-10"}
	delete(pages, "/b/")
	pages["/d/"] = sitemapsite.Page{Title: "D", Text: "d"}
	e.Site.Version("", pages)
	e.Harvest()
	want := []string{"created /d/", "deleted /b/", "updated /a/"}
	if got := e.Changes(); !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	for _, p := range []string{"/a/", "/b/", "/c/", "/d/"} {
		if n := e.Site.Hits(p); n != 0 {
			t.Errorf("%s was read %d times with snapshots off", p, n)
		}
	}
}

// TestSitemapHostilePages: a page gone from the sitemap that answers 200
// "not found" is deleted; one that still answers is only no longer
// followed; pages that all lead to a login page change nothing.
func TestSitemapHostilePages(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	v := sitemapShrine()
	v["/f/"] = sitemapsite.Page{Title: "Still here", Text: "Unlisted later."}
	e.Site.Version("2026-11-20T09:00:00Z", v)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	v2 := sitemapShrine()
	v2["/d/"] = sitemapsite.Page{Title: "Page not found", Text: "Sorry.", Unlisted: true}
	v2["/f/"] = sitemapsite.Page{Title: "Still here", Text: "Unlisted later.", Unlisted: true}
	for _, p := range []string{"/", "/a/", "/b/", "/c/"} {
		v2[p] = sitemapsite.Page{Title: "unused", Redirect: "/login/"}
	}
	v2["/login/"] = sitemapsite.Page{Title: "Log in", Text: "Log in to see this page.", Unlisted: true}
	e.Site.Version("2026-11-21T09:00:00Z", v2)
	rep := e.Harvest()
	if got := e.Changes(); !slices.Equal(got, []string{"deleted /d/"}) {
		t.Errorf("changes %v, want only the soft 404 deleted; warnings %q", got, harvesttest.Warnings(rep))
	}
	w := strings.Join(harvesttest.Warnings(rep), "\n")
	for _, want := range []string{"/f/ is no longer in the sitemap but is still there", "now leads to " + e.Site.URL("/login/")} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
}

// TestSitemapHugeIndex: an index of 10,000 sitemaps costs the site at
// most maxSitemapChildren fetches, and says so.
func TestSitemapHugeIndex(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	var sb strings.Builder
	sb.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range 10_000 {
		fmt.Fprintf(&sb, "<sitemap><loc>{root}/s%d.xml</loc></sitemap>", i)
	}
	sb.WriteString(`</sitemapindex>`)
	e.Site.Raw("/sitemap_index.xml", sb.String())
	e.Site.Raw("/s0.xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{root}/a/</loc></url></urlset>`)
	e.Site.Sitemap("/none.xml", false)
	e.Site.Version("", sitemapShrine())
	rep := harvesttest.Follow(t, e.H, e.Site.URL("/"))
	col := rep.Collections[0]
	read := 0
	for i := range 10_000 {
		read += e.Site.Hits(fmt.Sprintf("/s%d.xml", i))
	}
	if read != maxSitemapChildren {
		t.Errorf("%d child sitemaps were fetched, want %d", read, maxSitemapChildren)
	}
	if w := strings.Join(col.Run.Warnings, "\n"); !strings.Contains(w, fmt.Sprintf("names more than %d sitemaps", maxSitemapChildren)) {
		t.Errorf("warnings %q", w)
	}
	pages, _ := e.Store.Pages(context.Background(), col.Collection.ID)
	if len(pages) != 1 {
		t.Errorf("pages %v, want /a/ from the one child that answers", pages)
	}
}

// failingFollow follows u with a client whose dial hook records every
// connection attempt, and returns the error and the attempts.
func failingFollow(t *testing.T, u string) (error, []string) {
	t.Helper()
	store, err := db.Open(context.Background(), pgtest.Target(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var mu sync.Mutex
	var dials []string
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true, DialHook: func(_, addr string) {
		mu.Lock()
		dials = append(dials, addr)
		mu.Unlock()
	}})
	h := harvest.New(client, store, harvest.Options{Snapshots: harvest.SnapshotSettings{Off: true}})
	_, err = h.Follow(context.Background(), u)
	if err == nil {
		t.Fatalf("following %s succeeded", u)
	}
	return err, dials
}

// TestFollowFailuresSayWhyFirst: when nothing can be followed, the error
// starts with one sentence saying why.
func TestFollowFailuresSayWhyFirst(t *testing.T) {
	err, dials := failingFollow(t, "https://shrine.example.invalid/moths/")
	if !strings.HasPrefix(err.Error(), "the name shrine.example.invalid does not exist") || len(dials) != 0 {
		t.Errorf("a name that does not exist: %q after %d connection attempts", err, len(dials))
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	err, _ = failingFollow(t, closed.URL+"/")
	if !strings.HasPrefix(err.Error(), "the site refused the connection") {
		t.Errorf("a closed port: %q", err)
	}

	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	err, _ = failingFollow(t, notFound.URL+"/shrine/")
	if !strings.HasPrefix(err.Error(), "every page answered 404") || !strings.Contains(err.Error(), "; tried: ") {
		t.Errorf("a site of 404s: %q", err)
	}

	forbidden := sitemapsite.New()
	t.Cleanup(forbidden.Close)
	forbidden.Version("", sitemapShrine())
	forbidden.Robots("User-agent: *\nDisallow: /\n")
	err, _ = failingFollow(t, forbidden.URL("/"))
	if !strings.HasPrefix(err.Error(), "robots.txt forbids tidings") {
		t.Errorf("a site closed by robots.txt: %q", err)
	}

	login := sitemapsite.New()
	t.Cleanup(login.Close)
	login.Sitemap("/none.xml", false)
	login.Version("", map[string]sitemapsite.Page{"/login/": {Title: "Log in", Text: "Log in first."}})
	login.Srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login/" {
			// A password field makes it a sign-in page, which no
			// watched page set follows either.
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<title>Log in</title><form method=post><input type=password name=pw></form>`)
			return
		}
		if r.URL.Path != "/robots.txt" {
			http.Redirect(w, r, "/login/", http.StatusFound)
			return
		}
		login.ServeHTTP(w, r)
	})
	err, _ = failingFollow(t, login.URL("/"))
	if !strings.HasPrefix(err.Error(), "every address on the site leads to "+login.URL("/login/")) {
		t.Errorf("a site behind a login page: %q", err)
	}
}

// rsXMLNS binds the namespaces of a ResourceSync document.
const rsXMLNS = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
