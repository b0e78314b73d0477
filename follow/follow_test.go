package follow

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fixturesite"
	"tidings/worker"
)

// openStore opens a new database.
func openStore(t *testing.T) *db.DB {
	t.Helper()
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

func TestFollowAllFollowsSeveralSitesPolitely(t *testing.T) {
	store := openStore(t)
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	s := New(store, harvest.New(client, store, harvest.Options{Snapshots: harvest.SnapshotSettings{Off: true}}), Options{})
	var sites []*fixturesite.Site
	var urls []string
	for range 4 {
		site := fixturesite.New(time.Now())
		t.Cleanup(site.Close)
		// Slow answers: two harvests of one host at once would overlap.
		site.SetDelay(5 * time.Millisecond)
		sites = append(sites, site)
		urls = append(urls, site.URL+"/")
	}
	// Two addresses of the first site, side by side, and one that is none.
	urls = append([]string{urls[0], sites[0].URL + "/shrine/"}, urls[1:]...)
	urls = append(urls, "mailto:ann@example.org")
	var mu sync.Mutex
	outcome := map[string]error{}
	err := s.FollowAll(t.Context(), urls, worker.Batch{Workers: 3, Done: func(u string, rep *SiteReport, err error) {
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
	stored, err := store.Sites(t.Context())
	if err != nil || len(stored) != 4 {
		t.Fatalf("%d sites stored, %v; want 4", len(stored), err)
	}
	for i, site := range sites {
		s, err := store.SiteByURL(t.Context(), site.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := store.Collections(t.Context(), db.CollectionFilter{SiteID: s.ID})
		if len(cols) != 2 {
			t.Errorf("site %d: %d collections, want 2", i, len(cols))
		}
		if n := site.Overlaps(); n != 0 {
			t.Errorf("site %d got %d requests while answering another", i, n)
		}
	}
}
