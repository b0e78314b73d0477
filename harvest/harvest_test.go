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
	"tidings/internal/harvesttest"
)

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
