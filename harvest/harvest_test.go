package harvest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fixturesite"
	"tidings/internal/harvesttest"
	"tidings/source"
)

func TestFollowHarvestsTheFixtureSite(t *testing.T) {
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

func TestNewChangeMakesANewDigest(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Follow()
	e.Site.Set("/shrine/changes-current.xml", `<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="changelist" from="{{ago "240h"}}"/>
  <url><loc>{{.Base}}/shrine/gallery.html</loc><rs:md change="created" datetime="{{ago "48h"}}"/></url>
  <url><loc>{{.Base}}/shrine/links.html</loc><lastmod>{{ago "24h"}}</lastmod><rs:md change="updated"/></url>
  <url><loc>{{.Base}}/shrine/gallery.html</loc><rs:md change="updated" datetime="{{ago "-1h"}}"/></url>
</urlset>`)
	rep := e.Harvest()
	shrine := harvesttest.Collection(t, rep, "/shrine/").Run
	if shrine.Changes != 1 {
		t.Fatalf("third-party edit: %d new changes, want 1", shrine.Changes)
	}
	digests, err := e.Store.Digests(context.Background(), db.Scope{CollectionID: harvesttest.Collection(t, rep, "/shrine/").Collection.ID}, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(digests) != 2 || len(digests[0].Changes) != 1 || digests[0].Changes[0].Kind != "updated" {
		t.Fatalf("digests after an edit: %+v", digests)
	}
}

func TestStrictDatetimeIgnoresLastmodOnlyEntries(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{Sources: source.SettingsSet{harvest.ProtocolResourceSync: &harvest.ResourceSyncSettings{StrictDatetime: true}}})
	rep := e.Follow()
	r := harvesttest.Collection(t, rep, "/shrine/").Run
	if r.Changes != 3 || r.LastmodOnly != 0 {
		t.Errorf("strict: changes %d lastmod-only %d, want 3 and 0", r.Changes, r.LastmodOnly)
	}
	if c := harvesttest.FindChange(e.Changes()["/shrine/"], e.Site.URL+"/shrine/links.html", "updated"); c != nil {
		t.Errorf("strict mode recorded the lastmod-only entry: %+v", c)
	}
}

func TestFailedListKeepsWatermarkAndLosesNothing(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Fail("/shrine/changes-current.xml", http.StatusInternalServerError)
	rep := e.Follow()
	r := harvesttest.Collection(t, rep, "/shrine/")
	want := "change list " + e.Site.URL + "/shrine/changes-current.xml returned 500 Internal Server Error"
	if r.Run.Error != want {
		t.Errorf("run error = %q, want %q", r.Run.Error, want)
	}
	col, err := e.Store.CollectionByID(context.Background(), r.Collection.ID)
	if err != nil {
		t.Fatal(err)
	}
	if col.LastProcessedAt != nil || col.LastError != want {
		t.Errorf("after a failed list: watermark %v, last error %q; the watermark must not move", col.LastProcessedAt, col.LastError)
	}
	e.Site.Fail("/shrine/changes-current.xml", 0)
	rep = e.Harvest()
	if r := harvesttest.Collection(t, rep, "/shrine/").Run; r.Error != "" || r.Changes != 2 {
		t.Errorf("after recovery: error %q, changes %d; want the 2 changes of the list that failed", r.Error, r.Changes)
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

func TestFollowNothingFoundListsWhatWasTried(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Remove("/.well-known/resourcesync")
	e.Site.Set("/", "<!doctype html><title>Home</title><p>No ResourceSync here.")
	_, err := e.H.Follow(context.Background(), e.Site.URL+"/")
	if err == nil {
		t.Fatal("follow of a site without ResourceSync succeeded")
	}
	for _, want := range []string{"/.well-known/resourcesync returned 404", "robots.txt returned 404", "has no Link header"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	sites, _ := e.Store.Sites(context.Background())
	if len(sites) != 0 {
		t.Errorf("a site with nothing to follow was stored: %+v", sites)
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

func TestFollowTwiceIsNotAnError(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Follow()
	rep, err := e.H.Follow(context.Background(), e.Site.URL)
	if rep == nil || !errors.Is(err, db.ErrAlreadyExists) {
		t.Fatalf("second follow: %v, %v; want a report and ErrAlreadyExists", rep, err)
	}
	if rep.Changes() != 0 {
		t.Errorf("second follow found %d changes", rep.Changes())
	}
}

func TestSiteRoot(t *testing.T) {
	tests := []struct{ in, want, wantErr string }{
		{"example.org", "https://example.org/", ""},
		{"  HTTP://Example.ORG/deep/page.html#x ", "http://example.org/", ""},
		{"https://example.org:8443/a", "https://example.org:8443/", ""},
		{"", "", "no address was given"},
		{"ftp://example.org/", "", "is not an http or https address"},
		{"https:///path", "", "has no host name"},
		{"mailto:ann@example.org", "", "contains a user name"},
		{"https://user:pw@example.org/", "", "contains a user name"},
	}
	for _, tt := range tests {
		got, err := harvest.SiteRoot(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("harvest.SiteRoot(%q) = %q, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("harvest.SiteRoot(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestSourceDescriptionOutageKeepsCollections(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Follow()
	e.Site.Fail("/.well-known/resourcesync", http.StatusServiceUnavailable)
	rep := e.Harvest()
	if !strings.Contains(rep.Run.Error, "/.well-known/resourcesync returned 503") {
		t.Errorf("site run error = %q, want the 503 named", rep.Run.Error)
	}
	if len(rep.Collections) != 2 {
		t.Fatalf("harvested %d collections during the outage, want the 2 found before", len(rep.Collections))
	}
	cols, err := e.Store.Collections(context.Background(), db.CollectionFilter{ActiveOnly: true})
	if err != nil || len(cols) != 2 {
		t.Errorf("active collections after the outage: %d, %v; want 2", len(cols), err)
	}
}

func TestHostileSiteLimits(t *testing.T) {
	t.Run("documents per harvest", func(t *testing.T) {
		e := harvesttest.NewEnv(t, harvest.Options{MaxDocuments: 6})
		rep, err := e.H.Follow(context.Background(), e.Site.URL)
		if err != nil {
			t.Fatal(err)
		}
		var problems []string
		for _, c := range rep.Collections {
			problems = append(problems, c.Run.Error)
		}
		if !strings.Contains(strings.Join(problems, "|"), "limit of documents one harvest may fetch") {
			t.Errorf("with a budget of 6 documents: %q, want the limit named", problems)
		}
		if n := len(e.Site.Log()); n > 6+4 {
			t.Errorf("the site got %d requests; the limit should stop it near 6 (plus discovery)", n)
		}
	})
	t.Run("time per site", func(t *testing.T) {
		e := harvesttest.NewEnv(t, harvest.Options{SiteTimeout: 400 * time.Millisecond})
		e.Follow()
		e.Site.SetDelay(150 * time.Millisecond)
		start := time.Now()
		rep := e.Harvest()
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("harvest took %v with a 400ms site limit", d)
		}
		s, _ := e.Store.SiteByID(context.Background(), rep.Site.ID)
		if s.Failures != 1 {
			t.Errorf("a site cut off by its time limit: failures %d, want 1", s.Failures)
		}
		var cut bool
		for _, c := range rep.Collections {
			cut = cut || strings.Contains(c.Run.Error, "the limit for one site")
		}
		if !cut && rep.Run.Error == "" {
			t.Errorf("no run says the site was cut off: %+v", rep.Collections)
		}
	})
	t.Run("slow drip", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(http.StatusOK)
			for range 100 {
				if _, err := w.Write([]byte("<")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		}))
		defer srv.Close()
		c := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, Timeout: 500 * time.Millisecond})
		start := time.Now()
		_, err := c.Get(context.Background(), srv.URL+"/changes.xml", fetch.Conditional{})
		if err == nil || time.Since(start) > 3*time.Second {
			t.Errorf("a server sending a byte every 100ms: %v after %v; want cut off by the 500ms deadline", err, time.Since(start))
		}
	})
	t.Run("index cycle", func(t *testing.T) {
		e := harvesttest.NewEnv(t, harvest.Options{})
		e.Site.Set("/.well-known/resourcesync", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="description"/>
<sitemap><loc>{{.Base}}/.well-known/resourcesync</loc></sitemap>
<sitemap><loc>{{.Base}}/rs/loop.xml</loc></sitemap></sitemapindex>`)
		e.Site.Set("/rs/loop.xml", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="description"/><sitemap><loc>{{.Base}}/.well-known/resourcesync</loc></sitemap></sitemapindex>`)
		_, err := e.H.Follow(context.Background(), e.Site.URL)
		if err == nil || !strings.Contains(err.Error(), "is not a Source Description") {
			t.Errorf("a Source Description Index naming itself: %v", err)
		}
		if n := e.Site.Requests("/.well-known/resourcesync"); n > 2 {
			t.Errorf("the looping index was fetched %d times", n)
		}
	})
}
