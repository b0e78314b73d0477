package harvest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fixturesite"
	"tidings/internal/harvesttest"
)

// discoveryProbes are the places only a full discovery looks at on the
// fixture site, which publishes none of them.
var discoveryProbes = []string{"/.well-known/arc-sitemap.json", "/arc-sitemap.json", "/sitemap.xml", "/"}

// answersSince returns what the site answered after the first n requests.
func answersSince(s *fixturesite.Site, n int) []fixturesite.Answer {
	return s.Answers()[n:]
}

func TestFollowReadsRobotsTxtOnce(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Set("/robots.txt", "User-agent: *\nDisallow: /private/\n")
	e.Follow()
	if n := e.Site.Requests("/robots.txt"); n != 1 {
		t.Errorf("following the site fetched robots.txt %d times, want once for discovery and every fetch", n)
	}
}

func TestUnchangedSiteIsHarvestedWithConditionalRequestsOnly(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Set("/robots.txt", "User-agent: *\nDisallow: /private/\n")
	e.Follow()
	n := len(e.Site.Answers())

	// Another process (tidings harvest) with the same database: a new
	// client, which knows nothing but what was stored.
	h := harvest.New(fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true}), e.Store, harvest.Options{})
	rep := harvesttest.HarvestSite(t, e.Store, h, e.Site.URL+"/")
	got := answersSince(e.Site, n)
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
	e := harvesttest.NewEnv(t, harvest.Options{Now: func() time.Time { return now }})
	e.Follow()
	site, err := e.Store.SiteByURL(context.Background(), e.Site.URL+"/")
	if err != nil || site.DiscoveredAt == nil || !site.DiscoveredAt.Equal(now) {
		t.Fatalf("after following: discovered at %v, %v; want %v", site.DiscoveredAt, err, now)
	}
	probes := func() int {
		n := 0
		for _, p := range discoveryProbes {
			n += e.Site.Requests(p)
		}
		return n
	}
	before := probes()
	now = now.Add(harvest.DefaultDiscoveryInterval - time.Hour)
	e.Harvest()
	if probes() != before {
		t.Errorf("a harvest within the discovery interval looked everywhere again")
	}
	now = now.Add(time.Hour)
	e.Harvest()
	if probes() == before {
		t.Errorf("a harvest a discovery interval after the last discovery did not look everywhere again")
	}
	site, _ = e.Store.SiteByURL(context.Background(), e.Site.URL+"/")
	if site.DiscoveredAt == nil || !site.DiscoveredAt.Equal(now) {
		t.Errorf("discovered at %v, want %v", site.DiscoveredAt, now)
	}

	// Following the site again looks everywhere at once.
	before = probes()
	if _, err := e.H.Follow(context.Background(), e.Site.URL); err == nil {
		t.Fatal("following again: no ErrAlreadyExists")
	}
	if probes() == before {
		t.Errorf("following the site again did not look everywhere again")
	}
}

func TestStaleRobotsTxtIsAskedConditionally(t *testing.T) {
	e := harvesttest.NewEnv(t, harvest.Options{})
	e.Site.Set("/robots.txt", "User-agent: *\nDisallow: /private/\n")
	e.Follow()
	ctx := context.Background()
	site, _ := e.Store.SiteByURL(ctx, e.Site.URL+"/")
	states, err := e.Store.FetchStates(ctx, site.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := states[e.Site.URL+"/robots.txt"]
	if !ok || st.ETag == "" {
		t.Fatalf("robots.txt's fetch state was not stored: %+v", st)
	}
	// Read two days ago: no longer to be trusted without asking.
	st.FetchedAt = time.Now().Add(-48 * time.Hour)
	if _, err := e.Store.SaveSiteHarvest(ctx, db.Run{SiteID: site.ID, StartedAt: st.FetchedAt, FinishedAt: st.FetchedAt}, []db.FetchState{st}); err != nil {
		t.Fatal(err)
	}
	n := len(e.Site.Answers())
	h := harvest.New(fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true}), e.Store, harvest.Options{})
	harvesttest.HarvestSite(t, e.Store, h, site.URL)
	var robots []fixturesite.Answer
	for _, a := range answersSince(e.Site, n) {
		if a.Path == "/robots.txt" {
			robots = append(robots, a)
		}
	}
	if len(robots) != 1 || robots[0].Status != http.StatusNotModified {
		t.Errorf("robots.txt answers %+v; want one 304", robots)
	}
	states, _ = e.Store.FetchStates(ctx, site.ID)
	if got := states[e.Site.URL+"/robots.txt"].FetchedAt; time.Since(got) > time.Hour {
		t.Errorf("robots.txt confirmed unchanged, but its state still says it was read at %v", got)
	}
}
