package worker

import (
	"context"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fixturesite"
	"tidings/internal/pgtest"
)

// testHarvester opens a fresh database and a harvester over it whose
// client may fetch from loopback, for the tests' own sites.
func testHarvester(t *testing.T, o harvest.Options) (*db.DB, *harvest.Harvester) {
	t.Helper()
	store, err := db.Open(t.Context(), pgtest.Target(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	// The fixture sites serve the change information, not the pages.
	o.Snapshots.Off = true
	return store, harvest.New(client, store, o)
}

// followSite follows the fixture site s, failing the test on an error.
func followSite(t *testing.T, h *harvest.Harvester, s *fixturesite.Site) *harvest.SiteReport {
	t.Helper()
	rep, err := h.Follow(t.Context(), s.URL)
	if err != nil {
		t.Fatalf("follow %s: %v", s.URL, err)
	}
	return rep
}

func TestHostPoolRunsHostsSideBySideOneAtATimeEach(t *testing.T) {
	hosts := []string{"a", "b", "a", "c", "a", "b", "d"}
	p := newHostPool(3)
	var mu sync.Mutex
	running := map[string]int{}
	peak, overlaps, ran := 0, 0, 0
	// The first three distinct hosts must be under way together before
	// any of them ends: with 3 workers they are, unless the pool runs one
	// thing at a time, and then the test fails instead of hanging.
	together := make(chan struct{})
	var once sync.Once
	stuck, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.each(context.Background(), len(hosts), func(i int) string { return hosts[i] }, func(_ context.Context, i int) {
		mu.Lock()
		ran++
		running[hosts[i]]++
		if running[hosts[i]] > 1 {
			overlaps++
		}
		total := 0
		for _, n := range running {
			total += n
		}
		peak = max(peak, total)
		if total == 3 {
			once.Do(func() { close(together) })
		}
		mu.Unlock()
		select {
		case <-together:
		case <-stuck.Done():
		}
		mu.Lock()
		running[hosts[i]]--
		mu.Unlock()
	})
	if ran != len(hosts) {
		t.Errorf("ran %d of %d items", ran, len(hosts))
	}
	if overlaps != 0 {
		t.Errorf("%d items ran while another of their host did", overlaps)
	}
	if peak != 3 {
		t.Errorf("at most %d items ran at once, want 3 (the workers)", peak)
	}
}

// TestLanesShareHosts: work of one host in one lane of a pool waits for
// that host's work in another lane, while its other hosts go ahead.
func TestLanesShareHosts(t *testing.T) {
	pool := NewPool()
	held, batch := pool.lane(1), pool.lane(2)
	release := make(chan struct{})
	if held.tryGo(context.Background(), "a", func(context.Context) { <-release }) != started {
		t.Fatal("the first lane did not start")
	}
	if r := batch.tryGo(context.Background(), "a", func(context.Context) {}); r != hostBusy {
		t.Errorf("the other lane started work on a busy host: %v", r)
	}
	ran := make(chan string, 2)
	done := make(chan struct{})
	go func() {
		batch.each(context.Background(), 2, func(i int) string { return []string{"a", "b"}[i] }, func(_ context.Context, i int) {
			ran <- []string{"a", "b"}[i]
		})
		close(done)
	}()
	if h := <-ran; h != "b" {
		t.Errorf("ran %s first, want b while a is busy", h)
	}
	close(release)
	<-done
	if h := <-ran; h != "a" {
		t.Errorf("ran %s second, want a once freed", h)
	}
	held.wait()
}

func TestHarvestSitesHarvestsEverySite(t *testing.T) {
	store, h := testHarvester(t, harvest.Options{})
	var sites []*fixturesite.Site
	for range 3 {
		s := fixturesite.New(time.Now())
		t.Cleanup(s.Close)
		followSite(t, h, s)
		sites = append(sites, s)
	}
	all, err := store.Sites(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	before := make([]int, len(sites))
	for i, s := range sites {
		before[i] = s.Requests("/shrine/capabilitylist.xml")
	}
	var reports []*harvest.SiteReport
	err = HarvestSites(t.Context(), h, all, Batch{Workers: 2, Done: func(_ string, rep *harvest.SiteReport, err error) {
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

// TestHarvestDueSitesSkipsWhatIsNoLongerDue: a site listed as due that
// another process harvested meanwhile is not harvested again.
func TestHarvestDueSitesSkipsWhatIsNoLongerDue(t *testing.T) {
	ctx := t.Context()
	store, h := testHarvester(t, harvest.Options{})
	done, again := fixturesite.New(time.Now()), fixturesite.New(time.Now())
	t.Cleanup(done.Close)
	t.Cleanup(again.Close)
	followSite(t, h, done)
	followSite(t, h, again)
	later := time.Now().Add(48 * time.Hour)
	sites, err := store.DueSites(ctx, later)
	if err != nil || len(sites) != 2 {
		t.Fatalf("due: %v, %v", sites, err)
	}
	for _, s := range sites {
		if s.URL == done.URL+"/" {
			if err := store.SetNextHarvest(ctx, s.ID, later.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := len(done.Log())
	var harvested []string
	err = HarvestDueSites(ctx, store, h, sites, func() time.Time { return later }, Batch{
		Done: func(u string, rep *harvest.SiteReport, err error) {
			if err != nil {
				t.Errorf("%s: %v", u, err)
			}
			if rep != nil {
				harvested = append(harvested, u)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(harvested) != 1 || harvested[0] != again.URL+"/" || len(done.Log()) != before {
		t.Errorf("harvested %v, %d requests to the site no longer due; want only %s", harvested, len(done.Log())-before, again.URL)
	}
}
