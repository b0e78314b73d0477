package sitemap

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
	"tidings/pagetext"
)

// newSMEnv is a ListEnv whose site publishes nothing but a sitemap; with
// adjusts its harvester's options.
func newSMEnv(t *testing.T, s harvest.SnapshotSettings, with ...func(*harvest.Options)) *harvesttest.ListEnv {
	t.Helper()
	o := harvest.Options{Snapshots: s}
	for _, w := range with {
		w(&o)
	}
	return harvesttest.NewListEnv(t, o)
}

// shrine is version 1 of a small generated site: every page's lastmod is
// the build time, and every page lists every other in its navigation.
func sitemapShrine() map[string]sitemapsite.Page {
	return map[string]sitemapsite.Page{
		"/":   {Title: "The Shrine", Text: "Welcome to my shrine to moths.\nPlease sign the guestbook."},
		"/a/": {Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about a week."},
		"/b/": {Title: "Atlas moth", Text: "The atlas moth is one of the largest moths."},
		"/c/": {Title: "Links", Text: "Other moth shrines I like."},
		"/d/": {Title: "Old news", Text: "This page will go away."},
	}
}

// shrine2 is version 2: /a/ was edited, /d/ removed, /e/ added; /b/ and
// /c/ differ only in their navigation and footer, like every page.
func sitemapShrine2() map[string]sitemapsite.Page {
	v := sitemapShrine()
	v["/a/"] = sitemapsite.Page{Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about ten days."}
	delete(v, "/d/")
	v["/e/"] = sitemapsite.Page{Title: "Guestbook", Text: "Thank you for visiting."}
	return v
}

// TestSitemapTwoVersions: a sitemap-only site whose generator stamps every
// lastmod with the build time, served in two versions, gives exactly the
// page created, the page whose text changed, and the page deleted; the
// first harvest records the pages as seen and floods nothing.
func TestSitemapTwoVersions(t *testing.T) { harvesttest.OnEachEngine(t, testSitemapTwoVersions) }

func testSitemapTwoVersions(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	e.Site.Version("2026-11-20T09:00:00Z", sitemapShrine())
	rep := harvesttest.Follow(t, e.H, e.Site.URL("/"))
	if len(rep.Collections) != 1 {
		t.Fatalf("collections %+v", rep.Collections)
	}
	col := rep.Collections[0].Collection
	if col.Protocol != Name || col.Key != e.Site.URL("/") || col.SourceURL != e.Site.URL("/sitemap.xml") {
		t.Errorf("collection %s %s from %s", col.Protocol, col.Key, col.SourceURL)
	}
	if got := e.Changes(); len(got) != 0 {
		t.Errorf("the first harvest recorded %v; want the pages recorded as seen", got)
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, StampWarning) {
		t.Errorf("warnings %q lack the build-stamp one", w)
	}
	pages, err := e.Store.Pages(context.Background(), col.ID)
	if err != nil || len(pages) != 5 {
		t.Fatalf("pages %v, %v", pages, err)
	}
	if n := e.Site.Hits("/sitemap.xml"); n != 1 {
		t.Errorf("following the site read its sitemap %d times, want once", n)
	}
	// The same version again: nothing changed.
	e.Site.Version("2026-11-21T09:00:00Z", sitemapShrine())
	e.Harvest()
	if got := e.Changes(); len(got) != 0 {
		t.Errorf("a rebuild without edits recorded %v", got)
	}
	e.Site.Version("2026-11-22T09:00:00Z", sitemapShrine2())
	rep = e.Harvest()
	want := []string{"created /e/", "deleted /d/", "updated /a/"}
	if got := e.Changes(); !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v; warnings %q", got, want, harvesttest.Warnings(rep))
	}
	var updated db.ExportedChange
	e.Store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		if c.Kind == "updated" {
			updated = c
		}
		return nil
	})
	del, ins := changetest.Diff(t, updated)
	if updated.Title != "Luna moth" || updated.TextChange != db.TextChanged || !slices.Equal(del, []string{"It lives for about a week."}) || !slices.Equal(ins, []string{"It lives for about ten days."}) {
		t.Errorf("the update of %s: title %q, text %q, removed %q, added %q", updated.URL, updated.Title, updated.TextChange, del, ins)
	}
	// Dated by the harvest, not by a build stamp that says nothing.
	if !updated.Datetime.Equal(e.Now) {
		t.Errorf("the update is dated %s, want the harvest's time %s", updated.Datetime, e.Now)
	}
}

// TestSitemapTrustedLastmod: a sitemap whose dates are the pages' own
// (Jekyll dates posts; other pages have none). A moved lastmod whose text
// did not change is no update; pages without a date are re-read, oldest
// check first, so every page is seen within a few harvests.
func TestSitemapTrustedLastmod(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{PageFetches: 10})
	pages := map[string]sitemapsite.Page{
		"/":               {Title: "Blog", Text: "Posts about moths."},
		"/2026/one.html":  {Title: "One", Text: "First post.", Lastmod: "2026-10-01"},
		"/2026/two.html":  {Title: "Two", Text: "Second post.", Lastmod: "2026-10-05"},
		"/about/":         {Title: "About", Text: "Me."},
		"/contact/":       {Title: "Contact", Text: "Write to me."},
		"/2026/three.htm": {Title: "Three", Text: "Third post.", Lastmod: "2026-10-09"},
	}
	e.Site.Version("", pages)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	// The first harvest read every page once, to compare it later (the
	// home page is read by discovery too).
	for p := range pages {
		if p != "/" && e.Site.Hits(p) != 1 {
			t.Errorf("%s was read %d times by the first harvest, want once", p, e.Site.Hits(p))
		}
	}
	// Two: the date of "one" moves with no change of text; "about" is
	// edited without a date.
	pages["/2026/one.html"] = sitemapsite.Page{Title: "One", Text: "First post.", Lastmod: "2026-11-01"}
	pages["/about/"] = sitemapsite.Page{Title: "About", Text: "Me, and my moths."}
	e.Site.Version("", pages)
	rep := e.Harvest()
	want := []string{"updated /about/"}
	if got := e.Changes(); !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v; warnings %q", got, want, harvesttest.Warnings(rep))
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); strings.Contains(w, StampWarning) {
		t.Errorf("a sitemap with the pages' own dates was taken for build-stamped: %q", w)
	}
}

// TestSitemapScopedCollection: a project site under a path, its sitemap
// under that path, no robots.txt: one collection for the path only.
func TestSitemapScopedCollection(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	e.Site.Sitemap("/project/sitemap.xml", false)
	e.Site.Version("", map[string]sitemapsite.Page{
		"/project/":       {Title: "Project", Text: "A tool.", Lastmod: "2026-11-01"},
		"/project/docs/":  {Title: "Docs", Text: "How to use it.", Lastmod: "2026-11-02"},
		"/other/":         {Title: "Other", Text: "Someone else's.", Lastmod: "2026-11-03"},
		"/project/x.html": {Title: "X", Text: "x", Lastmod: "2026-11-04"},
	})
	rep := harvesttest.Follow(t, e.H, e.Site.URL("/project/"))
	col := rep.Collections[0].Collection
	// Dated within the first harvest's window by a sitemap whose dates
	// are the pages' own: the collection's first entry.
	want := []string{"created /project/", "created /project/docs/", "created /project/x.html"}
	if got := e.Changes(); !slices.Equal(got, want) {
		t.Errorf("the first harvest recorded %v, want %v", got, want)
	}
	if col.Protocol != Name || col.Key != e.Site.URL("/project/") || col.Title != "Project" {
		t.Fatalf("collection %q %q titled %q", col.Protocol, col.Key, col.Title)
	}
	pages, _ := e.Store.Pages(context.Background(), col.ID)
	if len(pages) != 3 || pages[e.Site.URL("/other/")].URL != "" {
		t.Errorf("pages %v; want the three under /project/", pages)
	}
}

// TestSitemapGzipIndex: robots.txt names a sitemap index, which names a
// gzip sitemap, itself (skipped) and one on another host (skipped);
// the sitemap lists another host and a developer's leftover too.
func TestSitemapGzipIndex(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	e.Site.Sitemap("/sitemap-pages.xml.gz", true)
	e.Site.ExtraEntries(`<url><loc>https://elsewhere.invalid/</loc></url>`, `<url><loc>http://127.0.0.1:8000/draft/</loc></url>`)
	e.Site.Version("", map[string]sitemapsite.Page{
		"/":   {Title: "Home", Text: "Hello.", Lastmod: "2026-11-01"},
		"/a/": {Title: "A", Text: "a", Lastmod: "2026-11-02"},
	})
	e.Site.Robots("User-agent: *\nAllow: /\nSitemap: {root}/sitemap_index.xml\n")
	e.Site.Raw("/sitemap_index.xml", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>{root}/sitemap_index.xml</loc></sitemap>
<sitemap><loc>{root}/sitemap-pages.xml.gz</loc></sitemap>
<sitemap><loc>https://elsewhere.invalid/sitemap.xml</loc></sitemap>
</sitemapindex>`)
	root := e.Site.URL("/")
	rep := harvesttest.Follow(t, e.H, root)
	col := rep.Collections[0]
	if col.Collection.SourceURL != root+"sitemap_index.xml" || col.Run.Error != "" {
		t.Fatalf("collection from %s, error %q", col.Collection.SourceURL, col.Run.Error)
	}
	pages, _ := e.Store.Pages(context.Background(), col.Collection.ID)
	if len(pages) != 2 {
		t.Errorf("pages %v, want / and /a/", pages)
	}
	w := strings.Join(col.Run.Warnings, "\n")
	for _, want := range []string{"names itself", "lists 2 pages on other hosts"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
}

// TestSharedLines: lines two pages or more share on one side of a
// harvest are left out of the comparison; a line one page alone gained is
// its change.
func TestSharedLines(t *testing.T) {
	before := []string{"Nav A\nNav Old\nBody of a\n© built 1", "Nav A\nNav Old\nBody of b\n© built 1", "Nav A\nBody of c"}
	after := []string{"Nav A\nNav New\nBody of a, edited\n© built 2", "Nav A\nNav New\nBody of b\n© built 2", "Nav A\nBody of c"}
	shared := pagetext.QuarterShared(before).Union(pagetext.QuarterShared(after))
	if !pagetext.CompareBesides(before[1], after[1], shared).Unchanged() {
		t.Errorf("b changed only in shared lines, but counts as changed (shared %v)", shared)
	}
	if pagetext.CompareBesides(before[0], after[0], shared).Unchanged() {
		t.Error("a's edit was taken for a shared line")
	}
	if pagetext.QuarterShared([]string{"only one"}).Len() != 0 {
		t.Error("one text shares nothing")
	}
}

// TestSitemapEveryDateMoves: a generator that dates each page by the
// second it wrote it gives every page its own lastmod, and moves them all
// at each build: that is told too, and only the page whose text changed
// is updated.
func TestSitemapEveryDateMoves(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	build := func(v map[string]sitemapsite.Page, day int) map[string]sitemapsite.Page {
		i := 0
		for _, p := range []string{"/", "/a/", "/b/", "/c/", "/d/"} {
			page := v[p]
			page.Lastmod = fmt.Sprintf("2026-09-%02dT10:00:%02dZ", day, i)
			v[p] = page
			i++
		}
		return v
	}
	e.Site.Version("", build(sitemapShrine(), 1))
	rep := harvesttest.Follow(t, e.H, e.Site.URL("/"))
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); strings.Contains(w, StampWarning) {
		t.Errorf("distinct dates were taken for a build's at the first look: %q", w)
	}
	v := build(sitemapShrine(), 2)
	v["/c/"] = sitemapsite.Page{Title: "Links", Text: "Other moth shrines I like, and one I do not.", Lastmod: v["/c/"].Lastmod}
	e.Site.Version("", v)
	rep = e.Harvest()
	if got := e.Changes(); !slices.Equal(got, []string{"updated /c/"}) {
		t.Errorf("changes %v, want only /c/; warnings %q", got, harvesttest.Warnings(rep))
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, StampWarning) {
		t.Errorf("every date moved, but the harvest did not say so: %q", w)
	}
}

// TestSitemapOnePageManyAddresses: "/x/" and "/x/index.html" listed
// together are one page, and a sitemap that names "/contact" where it
// named "/contact/" moved nothing.
func TestSitemapOnePageManyAddresses(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	v := map[string]sitemapsite.Page{
		"/x/":           {Title: "X", Text: "x", Lastmod: "2026-09-01"},
		"/x/index.html": {Title: "X", Text: "x", Lastmod: "2026-09-01"},
		"/contact/":     {Title: "Contact", Text: "Write.", Lastmod: "2026-09-01"},
	}
	e.Site.Version("", v)
	rep := harvesttest.Follow(t, e.H, e.Site.URL("/"))
	pages, _ := e.Store.Pages(context.Background(), rep.Collections[0].Collection.ID)
	if len(pages) != 2 {
		t.Errorf("pages %v, want /x/ and /contact/", pages)
	}
	delete(v, "/contact/")
	v["/contact"] = sitemapsite.Page{Title: "Contact", Text: "Write.", Lastmod: "2026-09-01"}
	e.Site.Version("", v)
	rep = e.Harvest()
	if got := e.Changes(); len(got) != 0 {
		t.Errorf("renaming /contact/ to /contact recorded %v; warnings %q", got, harvesttest.Warnings(rep))
	}
}
