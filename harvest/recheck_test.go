package harvest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/internal/fixturesite"
)

// discoveryProbes are the places only a full discovery looks at on the
// fixture site, which publishes none of them.
var discoveryProbes = []string{"/.well-known/arc-sitemap.json", "/arc-sitemap.json", "/sitemap.xml", "/"}

// answersSince returns what the site answered after the first n requests.
func answersSince(s *fixturesite.Site, n int) []fixturesite.Answer {
	return s.Answers()[n:]
}

func TestFollowReadsRobotsTxtOnce(t *testing.T) {
	e := newEnv(t, Options{})
	e.site.Set("/robots.txt", "User-agent: *\nDisallow: /private/\n")
	e.follow()
	if n := e.site.Requests("/robots.txt"); n != 1 {
		t.Errorf("following the site fetched robots.txt %d times, want once for discovery and every fetch", n)
	}
}

func TestUnchangedSiteIsHarvestedWithConditionalRequestsOnly(t *testing.T) {
	e := newEnv(t, Options{})
	e.site.Set("/robots.txt", "User-agent: *\nDisallow: /private/\n")
	e.follow()
	n := len(e.site.Answers())

	// Another process (tidings harvest) with the same database: a new
	// client, which knows nothing but what was stored.
	h := New(fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true}), e.store, Options{})
	rep := harvestURL(t, e.store, h, e.site.URL+"/")
	got := answersSince(e.site, n)
	if len(got) == 0 {
		t.Fatal("the second harvest fetched nothing")
	}
	for _, a := range got {
		if a.Status != http.StatusNotModified || !a.Conditional {
			t.Errorf("%s answered %d (conditional %v); an unchanged site should answer every request 304", a.Path, a.Status, a.Conditional)
		}
	}
	for _, p := range append(discoveryProbes, "/robots.txt") {
		for _, a := range got {
			if a.Path == p {
				t.Errorf("the second harvest asked for %s again", p)
			}
		}
	}
	docs, unchanged := rep.Run.Documents, rep.Run.NotModified
	for _, c := range rep.Collections {
		docs, unchanged = docs+c.Run.Documents, unchanged+c.Run.NotModified
	}
	if docs != len(got) || unchanged != docs {
		t.Errorf("runs record %d documents, %d unchanged; the site answered %d requests", docs, unchanged, len(got))
	}
}

func TestFullDiscoveryAfterTheDiscoveryInterval(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, Options{Now: func() time.Time { return now }})
	e.follow()
	site, err := e.store.SiteByURL(context.Background(), e.site.URL+"/")
	if err != nil || site.DiscoveredAt == nil || !site.DiscoveredAt.Equal(now) {
		t.Fatalf("after following: discovered at %v, %v; want %v", site.DiscoveredAt, err, now)
	}
	probes := func() int {
		n := 0
		for _, p := range discoveryProbes {
			n += e.site.Requests(p)
		}
		return n
	}
	before := probes()
	now = now.Add(DefaultDiscoveryInterval - time.Hour)
	e.harvest()
	if probes() != before {
		t.Errorf("a harvest within the discovery interval looked everywhere again")
	}
	now = now.Add(time.Hour)
	e.harvest()
	if probes() == before {
		t.Errorf("a harvest a discovery interval after the last discovery did not look everywhere again")
	}
	site, _ = e.store.SiteByURL(context.Background(), e.site.URL+"/")
	if site.DiscoveredAt == nil || !site.DiscoveredAt.Equal(now) {
		t.Errorf("discovered at %v, want %v", site.DiscoveredAt, now)
	}

	// Following the site again looks everywhere at once.
	before = probes()
	if _, err := e.h.Follow(context.Background(), e.site.URL); err == nil {
		t.Fatal("following again: no ErrAlreadyExists")
	}
	if probes() == before {
		t.Errorf("following the site again did not look everywhere again")
	}
}

func TestMovedSourceDescriptionIsFoundAgain(t *testing.T) {
	e := newEnv(t, Options{})
	// robots.txt names where the Source Description Index will be; it is
	// trusted for a day, as crawlers may.
	e.site.Set("/robots.txt", "User-agent: *\nSitemap: {{.Base}}/rs/index.xml\n")
	e.follow()
	site, _ := e.store.SiteByURL(context.Background(), e.site.URL+"/")
	e.site.Set("/rs/index.xml", e.site.Get("/.well-known/resourcesync"))
	e.site.Remove("/.well-known/resourcesync")
	h := New(fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true}), e.store, Options{})
	rep := harvestURL(t, e.store, h, site.URL)
	if rep.Run.Error != "" || len(rep.Collections) != 2 {
		t.Fatalf("harvest after the move: error %q, %d collections", rep.Run.Error, len(rep.Collections))
	}
	moved, _ := e.store.SiteByURL(context.Background(), site.URL)
	if moved.SourceURL != e.site.URL+"/rs/index.xml" {
		t.Errorf("source after the move: %s", moved.SourceURL)
	}
	cols, _ := e.store.Collections(context.Background(), db.CollectionFilter{SiteID: site.ID, ActiveOnly: true})
	if len(cols) != 2 {
		t.Errorf("%d active collections after the move, want 2", len(cols))
	}
}

func TestStaleRobotsTxtIsAskedConditionally(t *testing.T) {
	e := newEnv(t, Options{})
	e.site.Set("/robots.txt", "User-agent: *\nDisallow: /private/\n")
	e.follow()
	ctx := context.Background()
	site, _ := e.store.SiteByURL(ctx, e.site.URL+"/")
	states, err := e.store.FetchStates(ctx, site.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := states[e.site.URL+"/robots.txt"]
	if !ok || st.ETag == "" {
		t.Fatalf("robots.txt's fetch state was not stored: %+v", st)
	}
	// Read two days ago: no longer to be trusted without asking.
	st.FetchedAt = time.Now().Add(-48 * time.Hour)
	if _, err := e.store.SaveSiteHarvest(ctx, db.Run{SiteID: site.ID, StartedAt: st.FetchedAt, FinishedAt: st.FetchedAt}, []db.FetchState{st}); err != nil {
		t.Fatal(err)
	}
	n := len(e.site.Answers())
	h := New(fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true}), e.store, Options{})
	harvestURL(t, e.store, h, site.URL)
	var robots []fixturesite.Answer
	for _, a := range answersSince(e.site, n) {
		if a.Path == "/robots.txt" {
			robots = append(robots, a)
		}
	}
	if len(robots) != 1 || robots[0].Status != http.StatusNotModified {
		t.Errorf("robots.txt answers %+v; want one 304", robots)
	}
	states, _ = e.store.FetchStates(ctx, site.ID)
	if got := states[e.site.URL+"/robots.txt"].FetchedAt; time.Since(got) > time.Hour {
		t.Errorf("robots.txt confirmed unchanged, but its state still says it was read at %v", got)
	}
}
