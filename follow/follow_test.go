package follow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fixturesite"
	"tidings/internal/pgtest"
	"tidings/opml"
	"tidings/worker"
)

// openStore opens a new database.
func openStore(t *testing.T) *db.DB {
	t.Helper()
	store, err := db.Open(t.Context(), pgtest.Target(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// user creates an account.
func user(t *testing.T, store *db.DB, name string) db.User {
	t.Helper()
	u, err := store.CreateUser(t.Context(), name, "x", name+"-token", "")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// fakeHarvester fetches nothing: a new site is followed by storing it
// (unless its host fails), after gate lets the follow go on. It counts
// the follows under way on each host.
type fakeHarvester struct {
	store *db.DB
	gate  chan struct{} // nil: never held
	fails map[string]bool
	// harvested, when set, hears of each HarvestSite.
	harvested chan string

	mu       sync.Mutex
	running  map[string]int
	overlaps int
	follows  []string // inputs, in the order followed
}

func newFake(store *db.DB) *fakeHarvester {
	return &fakeHarvester{store: store, running: map[string]int{}, fails: map[string]bool{}}
}

func (f *fakeHarvester) FollowNew(ctx context.Context, root, input string) (*SiteReport, *harvest.Discovery, error) {
	host := worker.HostOf(root)
	f.mu.Lock()
	f.follows = append(f.follows, input)
	if f.running[host]++; f.running[host] > 1 {
		f.overlaps++
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.running[host]--
		f.mu.Unlock()
	}()
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	if f.fails[host] {
		return nil, &harvest.Discovery{}, &Problem{Msg: "no change information at " + root}
	}
	site, err := f.store.CreateSite(ctx, db.Site{URL: root, InputURL: input})
	if err != nil {
		return nil, nil, err
	}
	return &SiteReport{Site: site}, &harvest.Discovery{}, nil
}

func (f *fakeHarvester) Refollow(_ context.Context, site db.Site, input string) (*SiteReport, error) {
	f.mu.Lock()
	f.follows = append(f.follows, input)
	f.mu.Unlock()
	return &SiteReport{Site: site}, nil
}

func (f *fakeHarvester) HarvestSite(_ context.Context, site db.Site) (*SiteReport, error) {
	if f.harvested != nil {
		f.harvested <- site.URL
	}
	return &SiteReport{Site: site}, nil
}

func (f *fakeHarvester) CheckAddress(_ context.Context, rawURL string) error {
	if worker.HostOf(rawURL) == "refused.example" {
		return errors.New("refused by the test")
	}
	return nil
}

// finished waits, at most 10 s, until discovery id is no longer pending.
func finished(t *testing.T, store *db.DB, id int64) db.Discovery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		x, err := store.DiscoveryByID(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if x.Status != db.DiscoveryPending {
			return x
		}
		if time.Now().After(deadline) {
			t.Fatalf("discovery %d still pending after 10 s", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAddFollowsAKnownSiteAtOnce(t *testing.T) {
	store := openStore(t)
	s := New(store, newFake(store), Options{})
	ann := user(t, store, "ann")
	site, err := store.CreateSite(t.Context(), db.Site{URL: "https://known.example/"})
	if err != nil {
		t.Fatal(err)
	}
	added, err := s.Add(t.Context(), ann.ID, " Known.example/some/page ")
	if err != nil || added.Site.ID != site.ID || added.Discovery.ID != 0 {
		t.Fatalf("add a known site: %+v, %v", added, err)
	}
	if ok, _ := store.Follows(t.Context(), ann.ID, site.ID); !ok {
		t.Error("ann does not follow the site")
	}
	added, err = s.Add(t.Context(), ann.ID, "https://known.example/")
	if !errors.Is(err, ErrAlreadyFollowed) || added.Site.URL != "https://known.example/" {
		t.Errorf("add it again: %+v, %v", added, err)
	}
}

func TestAddRefusesAndCaps(t *testing.T) {
	store := openStore(t)
	f := newFake(store)
	f.gate = make(chan struct{}) // the discoveries stay pending
	s := New(store, f, Options{MaxPendingDiscoveries: 2})
	t.Cleanup(func() {
		close(f.gate)
		s.Wait()
	})
	ann := user(t, store, "ann")
	var bad *AddressError
	var p *Problem
	if _, err := s.Add(t.Context(), ann.ID, "mailto:ann@example.org"); !errors.As(err, &bad) || !errors.As(err, &p) {
		t.Errorf("an address that is none: %v", err)
	}
	if _, err := s.Add(t.Context(), ann.ID, "https://refused.example/"); !errors.As(err, &bad) || err.Error() != "refused by the test" {
		t.Errorf("an address the policy refuses: %v", err)
	}
	for i := range 2 {
		if added, err := s.Add(t.Context(), ann.ID, fmt.Sprintf("https://new%d.example/", i)); err != nil || added.Discovery.ID == 0 {
			t.Fatalf("add %d: %+v, %v", i, added, err)
		}
	}
	var pending *PendingError
	if _, err := s.Add(t.Context(), ann.ID, "https://one-more.example/"); !errors.As(err, &pending) || pending.Pending != 2 || pending.Max != 2 {
		t.Errorf("over the cap: %v", err)
	}
}

// TestDiscoveriesOfOneHostTakeTurns: discoveries queued by two people on
// one host never run at once, and another host's goes ahead meanwhile.
func TestDiscoveriesOfOneHostTakeTurns(t *testing.T) {
	store := openStore(t)
	f := newFake(store)
	f.gate = make(chan struct{})
	f.fails["same.example"] = true
	s := New(store, f, Options{})
	s.Start(t.Context())
	ann, bob := user(t, store, "ann"), user(t, store, "bob")
	var ids []int64
	for _, add := range []struct {
		u   db.User
		url string
	}{{ann, "https://same.example/a"}, {bob, "https://same.example/b"}, {bob, "https://other.example/"}} {
		added, err := s.Add(t.Context(), add.u.ID, add.url)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, added.Discovery.ID)
	}
	// Ann's same.example and bob's other.example start; bob's
	// same.example waits for its host, however long.
	started := func() []string {
		f.mu.Lock()
		defer f.mu.Unlock()
		return slices.Clone(f.follows)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(started()) < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if got := started(); len(got) != 2 || !slices.Contains(got, "https://same.example/a") || !slices.Contains(got, "https://other.example/") {
		t.Errorf("started %q, want ann's same.example and bob's other.example", got)
	}
	for range 3 {
		f.gate <- struct{}{}
	}
	s.Wait()
	if f.overlaps != 0 {
		t.Errorf("%d follows ran beside another of their host", f.overlaps)
	}
	if got := started(); len(got) != 3 || got[2] != "https://same.example/b" {
		t.Errorf("followed %q, want bob's same.example last", got)
	}
	for i, want := range []string{db.DiscoveryFailed, db.DiscoveryFailed, db.DiscoveryFollowed} {
		if x := finished(t, store, ids[i]); x.Status != want {
			t.Errorf("discovery %d: %s (%s), want %s", i, x.Status, x.Message, want)
		}
	}
}

// TestStartResumesPendingDiscoveries: a discovery stored as pending runs
// at the next start, and a site stored meanwhile is followed without
// fetching.
func TestStartResumesPendingDiscoveries(t *testing.T) {
	store := openStore(t)
	ann := user(t, store, "ann")
	fresh, err := store.CreateDiscovery(t.Context(), ann.ID, 0, "fresh.example")
	if err != nil {
		t.Fatal(err)
	}
	known, err := store.CreateDiscovery(t.Context(), ann.ID, 0, "https://known.example/x")
	if err != nil {
		t.Fatal(err)
	}
	site, err := store.CreateSite(t.Context(), db.Site{URL: "https://known.example/"})
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(store)
	s := New(store, f, Options{})
	s.Start(t.Context())
	s.Wait()
	if x := finished(t, store, fresh.ID); x.Status != db.DiscoveryFollowed || x.Message != "found 0 collections" {
		t.Errorf("the new site's discovery: %s: %s", x.Status, x.Message)
	}
	if x := finished(t, store, known.ID); x.Status != db.DiscoveryFollowed || x.SiteID != site.ID || x.Message != "followed https://known.example/" {
		t.Errorf("the known site's discovery: %s (site %d): %s", x.Status, x.SiteID, x.Message)
	}
	if got := fmt.Sprint(f.follows); got != "[https://fresh.example/]" {
		t.Errorf("followed %s, want only the new site", got)
	}
}

func TestHarvestNowOncePerInterval(t *testing.T) {
	store := openStore(t)
	s := New(store, newFake(store), Options{HarvestNowEvery: time.Hour})
	ann := user(t, store, "ann")
	site, err := store.CreateSite(t.Context(), db.Site{URL: "https://known.example/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.HarvestNow(t.Context(), ann.ID, site); err != nil {
		t.Fatal(err)
	}
	var wait *WaitError
	if err := s.HarvestNow(t.Context(), ann.ID, site); !errors.As(err, &wait) || wait.Wait <= 59*time.Minute {
		t.Errorf("again at once: %v", err)
	}
	s.Wait()
	if s.Harvesting(t.Context(), site.ID) {
		t.Error("still harvesting once done")
	}
}

// TestHarvestNowDoesNotWaitForDiscoveries: a harvest asked for starts
// while every discovery worker is busy with a large import.
func TestHarvestNowDoesNotWaitForDiscoveries(t *testing.T) {
	store := openStore(t)
	f := newFake(store)
	f.gate = make(chan struct{})
	f.harvested = make(chan string, 1)
	s := New(store, f, Options{})
	s.Start(t.Context())
	t.Cleanup(func() {
		close(f.gate)
		s.Wait()
	})
	ann := user(t, store, "ann")
	for i := range DiscoveryWorkers + 2 {
		if _, err := s.Add(t.Context(), ann.ID, fmt.Sprintf("https://new%d.example/", i)); err != nil {
			t.Fatal(err)
		}
	}
	site, err := store.CreateSite(t.Context(), db.Site{URL: "https://known.example/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.HarvestNow(t.Context(), ann.ID, site); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.harvested:
	case <-time.After(10 * time.Second):
		t.Fatal("the harvest asked for did not start in 10 s")
	}
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

// TestNoBackgroundLeavesTheWorkInTheDatabase: a service that runs no
// background work (serve --no-scheduler) stores a discovery for a worker
// and makes a site asked for due; a service with a shared pool (a
// worker) takes the discovery under its claim.
func TestNoBackgroundLeavesTheWorkInTheDatabase(t *testing.T) {
	store := openStore(t)
	ann := user(t, store, "ann")
	web := New(store, newFake(store), Options{NoBackground: true})
	web.Start(t.Context())
	added, err := web.Add(t.Context(), ann.ID, "https://new.example/")
	if err != nil {
		t.Fatal(err)
	}
	site, err := store.CreateSite(t.Context(), db.Site{URL: "https://known.example/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetNextHarvest(t.Context(), site.ID, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := web.HarvestNow(t.Context(), ann.ID, site); err != nil {
		t.Fatal(err)
	}
	web.Wait()
	if !web.Harvesting(t.Context(), site.ID) {
		t.Error("a site asked for is not shown waiting for a worker")
	}
	if due, _ := store.DueSites(t.Context(), time.Now()); len(due) != 1 || due[0].ID != site.ID {
		t.Errorf("due sites %+v; want the one asked for", due)
	}
	pending, _ := store.ClaimableDiscoveries(t.Context(), time.Now())
	if len(pending) != 1 {
		t.Fatalf("discoveries left for a worker: %+v (added %+v)", pending, added)
	}

	ctx, cancel := context.WithCancel(t.Context())
	f := newFake(store)
	w := New(store, f, Options{Pool: worker.NewSharedPool(store, worker.Sharing{}), PollEvery: 10 * time.Millisecond})
	w.Start(ctx)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if x, _ := store.DiscoveryByID(t.Context(), pending[0].ID); x.Status != db.DiscoveryPending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker did not take the discovery")
		}
	}
	cancel()
	w.Wait()
	if got := fmt.Sprint(f.follows); got != "[https://new.example/]" {
		t.Errorf("followed %s", got)
	}
}

// TestAddKeepsTheAddressNormalised: a pending discovery's row keeps the
// address normalised once, as ParseAddress reads it back (an address
// typed without its scheme stays one, to be tried over http too).
func TestAddKeepsTheAddressNormalised(t *testing.T) {
	store := openStore(t)
	ann := user(t, store, "ann")
	s := New(store, newFake(store), Options{NoBackground: true})
	s.Start(t.Context())
	for _, raw := range []string{" Fresh.EXAMPLE/Shrine/#top", "HTTP://Other.Example/a"} {
		if _, err := s.Add(t.Context(), ann.ID, raw); err != nil {
			t.Fatal(err)
		}
	}
	s.Wait()
	rows, err := store.ClaimableDiscoveries(t.Context(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, x := range rows {
		kept = append(kept, x.InputURL)
	}
	slices.Sort(kept)
	if want := []string{"fresh.example/Shrine/", "http://other.example/a"}; !slices.Equal(kept, want) {
		t.Fatalf("rows keep %q, want %q", kept, want)
	}
	if a, err := ParseAddress(kept[0]); err != nil || !a.Bare || a.Input != "https://fresh.example/Shrine/" {
		t.Errorf("read back: %+v, %v", a, err)
	}
}

// TestImportKeepsTheAddressNormalised: the discoveries an OPML import
// queues keep their addresses as Add keeps them, so that a worker that
// resumes one reaches the site as the importing process would.
func TestImportKeepsTheAddressNormalised(t *testing.T) {
	store := openStore(t)
	ann := user(t, store, "ann")
	s := New(store, newFake(store), Options{NoBackground: true})
	s.Start(t.Context())
	outlines := []opml.Outline{{Title: "Fresh", HTMLURL: " Fresh.EXAMPLE/Shrine/#top"}, {Title: "Other", XMLURL: "HTTP://Other.Example/a"}}
	if _, err := s.Import(t.Context(), ann.ID, outlines, nil); err != nil {
		t.Fatal(err)
	}
	s.Wait()
	rows, err := store.ClaimableDiscoveries(t.Context(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, x := range rows {
		kept = append(kept, x.InputURL)
	}
	slices.Sort(kept)
	if want := []string{"fresh.example/Shrine/", "http://other.example/a"}; !slices.Equal(kept, want) {
		t.Fatalf("rows keep %q, want %q", kept, want)
	}
}
