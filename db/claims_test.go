package db

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// twoProcesses opens a second handle on the test's database, as a second
// process sharing it would.
func twoProcesses(t *testing.T) (*DB, *DB) {
	t.Helper()
	d, target := openTest(t)
	other, err := Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return d, other
}

// claimers runs per goroutines on each of two handles, each calling
// claim with its handle and a name of its own until it reports done, and
// returns how many times each key was claimed.
func claimers(t *testing.T, handles [2]*DB, per int, claim func(d *DB, holder string) (key string, done bool, err error)) map[string]int {
	t.Helper()
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	for h, d := range handles {
		for g := range per {
			holder := fmt.Sprintf("process%d/%d", h, g)
			wg.Go(func() {
				for {
					key, done, err := claim(d, holder)
					if err != nil {
						t.Error(err)
						return
					}
					if done {
						return
					}
					if key != "" {
						mu.Lock()
						got[key]++
						mu.Unlock()
					}
				}
			})
		}
	}
	wg.Wait()
	return got
}

// onceEach fails unless each of n keys was claimed exactly once.
func onceEach(t *testing.T, what string, got map[string]int, n int) {
	t.Helper()
	twice := 0
	for _, k := range got {
		if k != 1 {
			twice++
		}
	}
	if len(got) != n || twice > 0 {
		t.Errorf("%d of %d %s claimed, %d of them more than once; want each once", len(got), n, what, twice)
	}
}

// TestOutboxClaimedOnce: processes claiming messages at once, each with
// several senders, claim every message, and each exactly once.
func TestOutboxClaimedOnce(t *testing.T) {
	ctx := context.Background()
	d, other := twoProcesses(t)
	ann := testUser(t, d, "ann")
	const n = 1000
	now := time.Now().UTC()
	msgs := make([]OutboxMessage, n)
	for i := range msgs {
		msgs[i] = OutboxMessage{UserID: ann.ID, Kind: OutboxEmail, Address: "ann@example.org", Message: fmt.Sprint(i)}
	}
	if err := d.Enqueue(ctx, now, msgs...); err != nil {
		t.Fatal(err)
	}
	got := claimers(t, [2]*DB{d, other}, 4, func(d *DB, _ string) (string, bool, error) {
		m, err := d.ClaimOutbox(ctx, now, time.Hour)
		if errors.Is(err, ErrNotFound) {
			return "", true, nil
		}
		return m.Message, false, err
	})
	onceEach(t, "messages", got, n)
}

// TestDiscoveriesClaimedOnce: of holders in two processes claiming every
// pending discovery at once, one holder has each.
func TestDiscoveriesClaimedOnce(t *testing.T) {
	ctx := context.Background()
	d, other := twoProcesses(t)
	ann := testUser(t, d, "ann")
	const n = 1000
	ids := make([]int64, n)
	for i := range ids {
		x, err := d.CreateDiscovery(ctx, ann.ID, 0, fmt.Sprintf("https://s%d.example/", i))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = x.ID
	}
	var mu sync.Mutex
	next := map[string]int{}
	got := claimers(t, [2]*DB{d, other}, 4, func(d *DB, holder string) (string, bool, error) {
		mu.Lock()
		i := next[holder]
		next[holder]++
		mu.Unlock()
		if i == n {
			return "", true, nil
		}
		now := time.Now()
		ok, err := d.ClaimDiscovery(ctx, ids[i], holder, now, now.Add(time.Hour))
		if !ok || err != nil {
			return "", false, err
		}
		return fmt.Sprint(ids[i]), false, nil
	})
	onceEach(t, "discoveries", got, n)
}

// TestHostLeasesTakenOnce: of holders in two processes taking every host
// at once, one holder has each.
func TestHostLeasesTakenOnce(t *testing.T) {
	ctx := context.Background()
	d, other := twoProcesses(t)
	const n = 1000
	var mu sync.Mutex
	next := map[string]int{}
	got := claimers(t, [2]*DB{d, other}, 4, func(d *DB, holder string) (string, bool, error) {
		mu.Lock()
		i := next[holder]
		next[holder]++
		mu.Unlock()
		if i == n {
			return "", true, nil
		}
		host := fmt.Sprintf("h%d.example:443", i)
		ok, err := d.TakeHost(ctx, host, holder, time.Hour)
		if !ok || err != nil {
			return "", false, err
		}
		return host, false, nil
	})
	onceEach(t, "hosts", got, n)
}

// TestFirstSignUpsMakeOneAdmin: of people signing up at once on an empty
// database, in two processes, one becomes an admin; and of first
// sign-ups without an invite, one succeeds.
func TestFirstSignUpsMakeOneAdmin(t *testing.T) {
	ctx := context.Background()
	for round := range 5 {
		d, other := twoProcesses(t)
		const per = 4
		var wg sync.WaitGroup
		var mu sync.Mutex
		admins, firsts := 0, 0
		for h, s := range [2]*DB{d, other} {
			for g := range per {
				wg.Go(func() {
					name := fmt.Sprintf("p%d-%d", h, g)
					create := s.CreateUser
					if g%2 == 1 {
						create = func(ctx context.Context, name, hash, token, _ string) (User, error) {
							return s.CreateFirstUser(ctx, name, hash, token)
						}
					}
					u, err := create(ctx, name, "hash", "token-"+name, "")
					if errors.Is(err, ErrInvalidInvite) && g%2 == 1 {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					if u.Admin {
						admins++
					}
					if g%2 == 1 {
						firsts++
					}
				})
			}
		}
		wg.Wait()
		users, err := d.Users(ctx)
		if err != nil {
			t.Fatal(err)
		}
		stored := 0
		for _, u := range users {
			if u.Admin {
				stored++
			}
		}
		if admins != 1 || stored != 1 || firsts > 1 {
			t.Errorf("round %d: %d admins made, %d stored, %d first sign-ups; want one admin, at most one first sign-up", round, admins, stored, firsts)
		}
	}
}

// TestClaimsIgnoreProcessClocks: processes whose clocks are a minute
// apart never take each other's claims or leases before these end on the
// database's clock, and take them once they have.
func TestClaimsIgnoreProcessClocks(t *testing.T) {
	ctx := context.Background()
	d, ahead := twoProcesses(t)
	behindNow := func() time.Time { return time.Now() }
	aheadNow := func() time.Time { return time.Now().Add(time.Minute) }
	const lease = 30 * time.Second

	ann := testUser(t, d, "ann")
	x, err := d.CreateDiscovery(ctx, ann.ID, 0, "https://a.example/")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Enqueue(ctx, behindNow(), OutboxMessage{UserID: ann.ID, Kind: OutboxEmail, Address: "ann@example.org", Message: "{}"}); err != nil {
		t.Fatal(err)
	}
	now := behindNow()
	if ok, err := d.ClaimDiscovery(ctx, x.ID, "behind", now, now.Add(lease)); !ok || err != nil {
		t.Fatalf("claim a discovery: %v, %v", ok, err)
	}
	if _, err := d.ClaimOutbox(ctx, behindNow(), lease); err != nil {
		t.Fatalf("claim a message: %v", err)
	}
	if ok, err := d.TakeHost(ctx, "a.example:443", "behind", lease); !ok || err != nil {
		t.Fatalf("take a host: %v, %v", ok, err)
	}

	takes := func() (discovery, message, host bool) {
		t.Helper()
		now := aheadNow()
		discovery, err := ahead.ClaimDiscovery(ctx, x.ID, "ahead", now, now.Add(lease))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ahead.ClaimOutbox(ctx, aheadNow(), lease)
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		host, err2 := ahead.TakeHost(ctx, "a.example:443", "ahead", lease)
		if err2 != nil {
			t.Fatal(err2)
		}
		return discovery, err == nil, host
	}
	if open, err := ahead.ClaimableDiscoveries(ctx, aheadNow()); err != nil || len(open) != 0 {
		t.Errorf("claimable by the process ahead: %+v, %v; want none", open, err)
	}
	if dis, msg, host := takes(); dis || msg || host {
		t.Errorf("the process a minute ahead took a discovery %v, a message %v, a host %v; want none before their leases end", dis, msg, host)
	}
	// The database's clock passes the leases.
	d.ahead, ahead.ahead = lease+time.Second, lease+time.Second
	if dis, msg, host := takes(); !dis || !msg || !host {
		t.Errorf("once the leases ended, the process ahead took a discovery %v, a message %v, a host %v; want all", dis, msg, host)
	}
}
