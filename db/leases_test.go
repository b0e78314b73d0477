package db

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestHostLeases: a host's lease is one holder's until it expires or is
// released; released, it stays held for the delay given; its holder may
// take it again at once.
func TestHostLeases(t *testing.T) {
	ctx := context.Background()
	d, target := openTest(t)
	other, err := Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	take := func(d *DB, holder string, ttl time.Duration) bool {
		t.Helper()
		ok, err := d.TakeHost(ctx, "a.example:443", holder, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !take(d, "one", time.Minute) {
		t.Fatal("a free host was not taken")
	}
	if take(other, "two", time.Minute) {
		t.Fatal("a held host was taken by another holder")
	}
	if !take(d, "one", time.Minute) {
		t.Error("a holder could not take again the lease it holds")
	}
	if ok, err := d.HoldHost(ctx, "a.example:443", "one", 300*time.Millisecond); err != nil || !ok {
		t.Fatalf("release: %v, %v", ok, err)
	}
	if take(other, "two", time.Minute) {
		t.Fatal("a host released was taken within its delay")
	}
	time.Sleep(400 * time.Millisecond)
	if !take(other, "two", time.Minute) {
		t.Fatal("a host released was not taken after its delay")
	}
	if ok, err := d.HoldHost(ctx, "a.example:443", "one", time.Minute); err != nil || ok {
		t.Errorf("renewing a lease another took: %v, %v; want false", ok, err)
	}
	leases, err := d.HostLeases(ctx)
	if err != nil || len(leases) != 1 || leases[0].Holder != "two" || time.Until(leases[0].Until) < 50*time.Second {
		t.Errorf("leases %+v, %v", leases, err)
	}
	if err := d.PruneHostLeases(ctx); err != nil {
		t.Fatal(err)
	}
	if leases, _ := d.HostLeases(ctx); len(leases) != 1 {
		t.Errorf("a lease held now was pruned: %+v", leases)
	}
}

// TestHostLeaseTakenOnce: of holders taking one free host at once, from
// processes of their own, exactly one gets it.
func TestHostLeaseTakenOnce(t *testing.T) {
	ctx := context.Background()
	_, target := openTest(t)
	const n = 4
	stores := make([]*DB, n)
	for i := range stores {
		d, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		stores[i] = d
	}
	for round := range 10 {
		host := fmt.Sprintf("h%d.example", round)
		var wg sync.WaitGroup
		got := make([]bool, n)
		for i, d := range stores {
			wg.Go(func() {
				ok, err := d.TakeHost(ctx, host, fmt.Sprint("holder", i), time.Minute)
				if err != nil {
					t.Error(err)
				}
				got[i] = ok
			})
		}
		wg.Wait()
		won := 0
		for _, ok := range got {
			if ok {
				won++
			}
		}
		if won != 1 {
			t.Errorf("%s: %d holders took it; want 1", host, won)
		}
	}
}

// TestClaimDiscovery: a pending discovery is one holder's until its claim
// expires on the database's clock, whatever the callers' clocks say; a
// finished one is nobody's.
func TestClaimDiscovery(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	u, err := d.CreateUser(ctx, "ann", "hash", "token", "")
	if err != nil {
		t.Fatal(err)
	}
	x, err := d.CreateDiscovery(ctx, u.ID, 0, "https://a.example/")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	claim := func(holder string, now time.Time) bool {
		t.Helper()
		ok, err := d.ClaimDiscovery(ctx, x.ID, holder, now, now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if open, _ := d.ClaimableDiscoveries(ctx, t0); len(open) != 1 {
		t.Fatalf("claimable before a claim: %+v", open)
	}
	if !claim("one", t0) || claim("two", t0.Add(30*time.Second)) {
		t.Fatal("a discovery was not claimed once")
	}
	if open, _ := d.ClaimableDiscoveries(ctx, t0.Add(30*time.Second)); len(open) != 0 {
		t.Errorf("claimable while claimed: %+v", open)
	}
	if !claim("one", t0.Add(30*time.Second)) {
		t.Error("its holder could not renew the claim")
	}
	if claim("two", t0.Add(2*time.Minute)) {
		t.Error("a claim was taken before it ended on the database's clock")
	}
	d.ahead = 2 * time.Minute
	if !claim("two", t0.Add(2*time.Minute)) {
		t.Error("an expired claim was not taken")
	}
	if err := d.FinishDiscovery(ctx, x.ID, DiscoveryFailed, 0, "nothing"); err != nil {
		t.Fatal(err)
	}
	if claim("one", t0.Add(time.Hour)) {
		t.Error("a finished discovery was claimed")
	}
}

// TestRunsCommitInIDOrder: with processes storing harvests at once, a
// reader never sees a run appear below the newest run it saw before:
// what the notifier's watermarks rely on.
func TestRunsCommitInIDOrder(t *testing.T) {
	ctx := context.Background()
	d, target := openTest(t)
	const writers, runs = 3, 25
	cols := make([]Collection, writers)
	stores := make([]*DB, writers)
	for i := range writers {
		cols[i] = testCollection(t, d, fmt.Sprint("site", i))
		s, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() {
			at := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
			for j := range runs {
				changes := make([]Change, 1+j%7*20)
				for k := range changes {
					changes[k] = Change{URL: fmt.Sprintf("https://site%d.example/%d/%d", i, j, k), Kind: "updated", Datetime: at}
				}
				_, err := s.SaveCollectionHarvest(ctx, CollectionHarvest{
					Run:     Run{SiteID: cols[i].SiteID, CollectionID: cols[i].ID, StartedAt: at, FinishedAt: at},
					Changes: changes,
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	seen := map[int64]bool{}
	var mark int64
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		ids, err := queryAll(ctx, d, "runs", `SELECT id FROM runs ORDER BY id`, func(r scanner) (int64, error) {
			var id int64
			return id, r.Scan(&id)
		})
		if err != nil {
			t.Error(err)
			break
		}
		for _, id := range ids {
			if !seen[id] && id <= mark {
				t.Errorf("run %d appeared after run %d was seen", id, mark)
				finished = true
			}
			seen[id] = true
			mark = max(mark, id)
		}
	}
	<-done
	if !t.Failed() && len(seen) != writers*runs {
		t.Errorf("saw %d runs; want %d", len(seen), writers*runs)
	}
}
