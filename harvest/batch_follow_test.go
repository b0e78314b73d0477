package harvest_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/fixturesite"
	"tidings/internal/harvesttest"
)

func TestFollowAllFollowsSeveralSitesPolitely(t *testing.T) {
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	var sites []*fixturesite.Site
	var urls []string
	for range 4 {
		s := fixturesite.New(time.Now())
		t.Cleanup(s.Close)
		// Slow answers: two harvests of one host at once would overlap.
		s.SetDelay(5 * time.Millisecond)
		sites = append(sites, s)
		urls = append(urls, s.URL+"/")
	}
	// Two addresses of the first site, side by side, and one that is none.
	urls = append([]string{urls[0], sites[0].URL + "/shrine/"}, urls[1:]...)
	urls = append(urls, "mailto:ann@example.org")
	var mu sync.Mutex
	outcome := map[string]error{}
	err := h.FollowAll(context.Background(), urls, harvest.Batch{Workers: 3, Done: func(u string, rep *harvest.SiteReport, err error) {
		mu.Lock()
		defer mu.Unlock()
		if _, twice := outcome[u]; twice {
			t.Errorf("%s reported twice", u)
		}
		outcome[u] = err
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(outcome) != len(urls) {
		t.Errorf("%d outcomes for %d addresses", len(outcome), len(urls))
	}
	for _, u := range urls[:5] {
		if err := outcome[u]; err != nil && !errors.Is(err, db.ErrAlreadyExists) {
			t.Errorf("%s: %v", u, err)
		}
	}
	if outcome["mailto:ann@example.org"] == nil {
		t.Error("an address that is none was not reported as an error")
	}
	stored, err := store.Sites(context.Background())
	if err != nil || len(stored) != 4 {
		t.Fatalf("%d sites stored, %v; want 4", len(stored), err)
	}
	for i, s := range sites {
		cols, _ := store.Collections(context.Background(), db.CollectionFilter{SiteID: harvesttest.SiteID(t, store, s.URL+"/")})
		if len(cols) != 2 {
			t.Errorf("site %d: %d collections, want 2", i, len(cols))
		}
		if n := s.Overlaps(); n != 0 {
			t.Errorf("site %d got %d requests while answering another", i, n)
		}
	}
}

func TestHarvestSitesHarvestsEverySite(t *testing.T) {
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	var sites []*fixturesite.Site
	for range 3 {
		s := fixturesite.New(time.Now())
		t.Cleanup(s.Close)
		harvesttest.Follow(t, h, s.URL)
		sites = append(sites, s)
	}
	all, err := store.Sites(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := make([]int, len(sites))
	for i, s := range sites {
		before[i] = s.Requests("/shrine/capabilitylist.xml")
	}
	var reports []*harvest.SiteReport
	err = h.HarvestSites(context.Background(), all, harvest.Batch{Workers: 2, Done: func(_ string, rep *harvest.SiteReport, err error) {
		if err != nil {
			t.Errorf("%s: %v", rep.Site.URL, err)
		}
		reports = append(reports, rep)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != len(all) {
		t.Errorf("%d reports for %d sites", len(reports), len(all))
	}
	for i, s := range sites {
		if s.Requests("/shrine/capabilitylist.xml") != before[i]+1 {
			t.Errorf("site %d: its capability list was not read once more", i)
		}
	}
}
