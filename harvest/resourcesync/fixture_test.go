package resourcesync_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/harvest/resourcesync"
	"tidings/internal/fixturesite"
	"tidings/internal/harvesttest"
	"tidings/source"
)

func TestFollowHarvestsTheFixtureSite(t *testing.T) {
	harvesttest.OnEachEngine(t, testFollowHarvestsTheFixtureSite)
}

func testFollowHarvestsTheFixtureSite(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	rep := e.Follow()
	if len(rep.Collections) != 2 {
		t.Fatalf("collections = %d, want 2 (one per Source Description of the index)", len(rep.Collections))
	}
	if rep.Site.Title != "Fixture Site" {
		t.Errorf("site title = %q, want the <title> of the Source Description's describedby page", rep.Site.Title)
	}
	shrine := harvesttest.Collection(t, rep, "/shrine/")
	if shrine.Collection.Title != "My Shrine & Co" {
		t.Errorf("shrine title = %q, want the describedby page's <title>", shrine.Collection.Title)
	}
	gallery := harvesttest.Collection(t, rep, "/gallery/")
	if gallery.Collection.Title != e.Site.URL+"/gallery/" {
		t.Errorf("gallery title = %q, want its describes URL", gallery.Collection.Title)
	}
	r := shrine.Run
	if r.Error != "" {
		t.Fatalf("shrine run error: %s", r.Error)
	}
	// In the feed: the deleted page and the date-only update (gzip'd list),
	// the created gallery page, and links.html dated by lastmod. History:
	// the two 2020 changes.
	if r.Changes != 4 || r.Backfilled != 2 || r.LastmodOnly != 1 {
		t.Errorf("shrine run: changes %d backfilled %d lastmod-only %d, want 4, 2, 1", r.Changes, r.Backfilled, r.LastmodOnly)
	}
	if len(r.Warnings) != 2 {
		t.Errorf("shrine warnings = %q, want the unreadable date and the entry with no date", r.Warnings)
	}
	all := e.Changes()
	base := e.Site.URL + "/shrine/"
	if c := harvesttest.FindChange(all["/shrine/"], base+"old-news.html", "deleted"); c == nil || c.History {
		t.Errorf("deleted change from the gzip'd list: %+v", c)
	} else if !strings.HasSuffix(c.Source, "changes-recent.xml.gz") {
		t.Errorf("source = %s", c.Source)
	}
	dateOnly := harvesttest.FindChange(all["/shrine/"], base+"index.html", "updated")
	wantDay := time.Date(e.Site.Now.Add(-480*time.Hour).Year(), e.Site.Now.Add(-480*time.Hour).Month(), e.Site.Now.Add(-480*time.Hour).Day(), 0, 0, 0, 0, time.UTC)
	if dateOnly == nil || !dateOnly.Datetime.Equal(wantDay) {
		t.Errorf("date-only datetime: %+v, want midnight UTC of %s", dateOnly, wantDay)
	}
	if c := harvesttest.FindChange(all["/shrine/"], base+"links.html", "updated"); c == nil || !c.FromLastmod {
		t.Errorf("lastmod-only entry: %+v, want it recorded and marked", c)
	}
	if c := harvesttest.FindChange(all["/shrine/"], base+"guestbook.html", "updated"); c != nil {
		t.Errorf("entry with neither datetime nor lastmod was recorded: %+v", c)
	}
	if c := harvesttest.FindChange(all["/shrine/"], base+"index.html", "created"); c == nil || !c.History {
		t.Errorf("2020 change should be stored as already seen: %+v", c)
	}
	if g := gallery.Run; g.Changes != 1 || g.Backfilled != 1 {
		t.Errorf("gallery (rs under the x: prefix): changes %d backfilled %d, want 1 and 1", g.Changes, g.Backfilled)
	}
}

func TestSecondHarvestIsConditionalAndSkipsOldLists(t *testing.T) {
	harvesttest.OnEachEngine(t, testSecondHarvestIsConditionalAndSkipsOldLists)
}

func testSecondHarvestIsConditionalAndSkipsOldLists(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Follow()
	before := len(flatten(e.Changes()))
	rep := e.Harvest()
	if n := rep.Changes(); n != 0 {
		t.Errorf("second harvest found %d changes, want 0", n)
	}
	if after := len(flatten(e.Changes())); after != before {
		t.Errorf("changes stored: %d then %d; a re-harvest must not duplicate", before, after)
	}
	for _, p := range []string{"/shrine/changes-2020.xml", "/shrine/changes-recent.xml.gz"} {
		if n := e.Site.Requests(p); n != 1 {
			t.Errorf("%s fetched %d times, want 1: its until predates the last processing time", p, n)
		}
	}
	if n := e.Site.Requests("/shrine/changes-current.xml"); n != 2 {
		t.Errorf("open-ended change list fetched %d times, want 2", n)
	}
	shrine := harvesttest.Collection(t, rep, "/shrine/").Run
	if shrine.NotModified != shrine.Documents || shrine.Documents != 3 {
		t.Errorf("shrine second run: %d documents, %d not modified; want 3 and 3 (304s)", shrine.Documents, shrine.NotModified)
	}
	digests, err := e.Store.Digests(context.Background(), db.Scope{CollectionID: harvesttest.Collection(t, rep, "/shrine/").Collection.ID}, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(digests) != 1 {
		t.Errorf("digests = %d, want 1: a run that finds nothing makes no entry", len(digests))
	}
}

func flatten(m map[string][]db.ExportedChange) []db.ExportedChange {
	var out []db.ExportedChange
	for _, l := range m {
		out = append(out, l...)
	}
	return out
}

func TestStrictDatetimeIgnoresLastmodOnlyEntries(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{Sources: source.SettingsSet{resourcesync.Name: &resourcesync.Settings{StrictDatetime: true}}})
	rep := e.Follow()
	r := harvesttest.Collection(t, rep, "/shrine/").Run
	if r.Changes != 3 || r.LastmodOnly != 0 {
		t.Errorf("strict: changes %d lastmod-only %d, want 3 and 0", r.Changes, r.LastmodOnly)
	}
	if c := harvesttest.FindChange(e.Changes()["/shrine/"], e.Site.URL+"/shrine/links.html", "updated"); c != nil {
		t.Errorf("strict mode recorded the lastmod-only entry: %+v", c)
	}
}

func TestDiscoveryFallbacks(t *testing.T) {
	tests := []struct {
		name  string
		setup func(s *fixturesite.Site)
		want  []string // collection keys, relative to the site
	}{
		{"robots.txt names a capability list", func(s *fixturesite.Site) {
			s.Set("/robots.txt", "User-agent: *\nSitemap: {{.Base}}/shrine/capabilitylist.xml\n")
		}, []string{"/shrine/"}},
		{"html link names a Source Description", func(s *fixturesite.Site) {
			s.Set("/shrine/", `<html><head><link rel="resourcesync" href="/rs/description-b.xml"></head></html>`)
		}, []string{"/gallery/"}},
		{"pasted capability list without up", func(s *fixturesite.Site) {
			s.Set("/shrine/", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="capabilitylist"/><url><loc>{{.Base}}/gallery/changes.xml</loc><rs:md capability="changelist"/></url></urlset>`)
		}, []string{"/shrine/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := harvesttest.NewEnv(t, harvest.Options{})
			e.Site.Remove("/.well-known/resourcesync")
			tt.setup(e.Site)
			rep := e.Follow()
			var got []string
			for _, c := range rep.Collections {
				got = append(got, strings.TrimPrefix(c.Collection.Key, e.Site.URL))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("collections = %v, want %v (tried %v)", got, tt.want, rep.Run.Warnings)
			}
		})
	}
}

// TestCapabilityListNamesItsCollection: when the Source Description gives
// a capability list no rs:ln rel="describes", the capability list's own
// (which IFCC-0001 requires of it) names the collection, and the list is
// fetched once in the whole follow; when neither has one, its URL does,
// with a warning.
func TestCapabilityListNamesItsCollection(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Set("/rs/description-b.xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="description"/><url><loc>{{.Base}}/gallery/caps.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`)
	rep := e.Follow()
	c := harvesttest.Collection(t, rep, "/gallery/")
	if c.Collection.Key != e.Site.URL+"/gallery/" || c.Run.Changes != 1 {
		t.Errorf("collection %q with %d changes, want %s/gallery/ with 1", c.Collection.Key, c.Run.Changes, e.Site.URL)
	}
	if n := e.Site.Requests("/gallery/caps.xml"); n != 1 {
		t.Errorf("the capability list was fetched %d times, want once", n)
	}
	if w := strings.Join(rep.Run.Warnings, "\n"); strings.Contains(w, "describes") {
		t.Errorf("warnings = %q", w)
	}

	e = harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Set("/rs/description-b.xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="description"/><url><loc>{{.Base}}/gallery/caps.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`)
	e.Site.Set("/gallery/caps.xml", strings.Replace(e.Site.Get("/gallery/caps.xml"),
		`<x:ln rel="describes" href="`+e.Site.URL+`/gallery/"/>`, "", 1))
	rep = e.Follow()
	c = harvesttest.Collection(t, rep, "/gallery/caps.xml")
	if c.Collection.Key != e.Site.URL+"/gallery/caps.xml" {
		t.Errorf("key = %s", c.Collection.Key)
	}
	if !strings.Contains(strings.Join(rep.Run.Warnings, "\n"), `has rs:ln rel="describes"; it is identified by its own URL`) {
		t.Errorf("warnings = %q, want one about the missing describes link", rep.Run.Warnings)
	}
}

// TestCapabilityListTitlesItsCollection: a describedby link on the
// capability list titles a new collection the Source Description left
// untitled.
func TestCapabilityListTitlesItsCollection(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Set("/gallery/about.html", "<html><head><title>The Gallery</title></head></html>")
	e.Site.Set("/gallery/caps.xml", strings.Replace(e.Site.Get("/gallery/caps.xml"), `<x:md capability="capabilitylist"/>`,
		`<x:md capability="capabilitylist"/><x:ln rel="describedby" href="`+e.Site.URL+`/gallery/about.html"/>`, 1))
	rep := e.Follow()
	if c := harvesttest.Collection(t, rep, "/gallery/"); c.Collection.Title != "The Gallery" {
		t.Errorf("title = %q, want the capability list's describedby page's", c.Collection.Title)
	}
	if n := e.Site.Requests("/gallery/caps.xml"); n != 1 {
		t.Errorf("the capability list was fetched %d times, want once", n)
	}
}

// TestSitemapIndexAtTheWellKnownPlaceIsASourceDescriptionIndex: IFCC-0001
// recognises a Source Description Index by its <sitemapindex> root alone.
func TestSitemapIndexAtTheWellKnownPlaceIsASourceDescriptionIndex(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Set("/.well-known/resourcesync", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>{{.Base}}/rs/description-a.xml</loc></sitemap>
<sitemap><loc>{{.Base}}/rs/description-b.xml</loc></sitemap>
</sitemapindex>`)
	rep := e.Follow()
	harvesttest.Collection(t, rep, "/shrine/")
	harvesttest.Collection(t, rep, "/gallery/")
}

// TestCapabilityListWithoutChangeListIsNoFailure: "Otherwise, no changes
// can be determined" (IFCC-0001) is said, and the harvest succeeds. (A
// resource list would be compared; see TestResourceListCompared.)
func TestCapabilityListWithoutChangeListIsNoFailure(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Set("/gallery/caps.xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="describes" href="{{.Base}}/gallery/"/><rs:md capability="capabilitylist"/>
<url><loc>{{.Base}}/gallery/dump.zip</loc><rs:md capability="resourcedump"/></url></urlset>`)
	c := harvesttest.Collection(t, e.Follow(), "/gallery/")
	if c.Run.Error != "" {
		t.Errorf("error = %q, want none", c.Run.Error)
	}
	if !strings.Contains(strings.Join(c.Run.Warnings, "\n"), "names no change list, so no changes can be determined") {
		t.Errorf("warnings = %q", c.Run.Warnings)
	}
}
