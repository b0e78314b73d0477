package db

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestPushTargetsUpTo: a person's targets stop at the bound, however
// fast they come and however many at once; another person's are theirs.
func TestPushTargetsUpTo(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	now := time.Now()
	const most = 5
	var wg sync.WaitGroup
	errs := make([]error, 3*most)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = d.AddPushTargetUpTo(ctx, ann.ID, fmt.Sprintf("ntfy://ntfy.sh/t%d", i), 0, most, now)
		}()
	}
	wg.Wait()
	added, refused := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			added++
		case errors.Is(err, ErrTooMany):
			refused++
		default:
			t.Errorf("add: %v", err)
		}
	}
	got, err := d.PushTargets(ctx, ann.ID)
	if err != nil || len(got) != most || added != most || refused != 2*most {
		t.Fatalf("%d stored (%v), %d added, %d refused; want %d, %d, %d", len(got), err, added, refused, most, most, 2*most)
	}
	if _, err := d.AddPushTargetUpTo(ctx, ann.ID, got[1].URL, 0, most, now); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("a URL she has, at the bound: %v, want ErrAlreadyExists", err)
	}
	if _, err := d.AddPushTargetUpTo(ctx, bob.ID, "ntfy://ntfy.sh/t0", 0, most, now); err != nil {
		t.Errorf("another person's first target: %v", err)
	}
	if _, err := d.RemovePushTarget(ctx, ann.ID, got[0].ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := d.AddPushTargetUpTo(ctx, ann.ID, "ntfy://ntfy.sh/again", 0, most, now); err != nil {
		t.Errorf("a target once one was removed: %v", err)
	}
}

// TestTakeAttempt: the attempts of the last hour are counted, per person
// and per target, whatever became of them; a target removed and added
// again does not start its person's hour afresh.
func TestTakeAttempt(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann := testUser(t, d, "ann")
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	a, err := d.AddPushTarget(ctx, ann.ID, "ntfy://ntfy.sh/a", 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.AddPushTarget(ctx, ann.ID, "ntfy://ntfy.sh/b", 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	take := func(target int64, at time.Time) bool {
		t.Helper()
		ok, err := d.TakeAttempt(ctx, ann.ID, target, at, 4, 2)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for i, want := range []bool{true, true, false} {
		if got := take(a.ID, t0.Add(time.Duration(i)*time.Minute)); got != want {
			t.Errorf("attempt %d at target a: %v, want %v", i+1, got, want)
		}
	}
	if !take(b.ID, t0.Add(3*time.Minute)) || !take(0, t0.Add(4*time.Minute)) {
		t.Error("the person's hour had room for two more")
	}
	if take(b.ID, t0.Add(5*time.Minute)) || take(0, t0.Add(5*time.Minute)) {
		t.Error("a fifth attempt within the person's hour")
	}
	if _, err := d.RemovePushTarget(ctx, ann.ID, a.ID, ""); err != nil {
		t.Fatal(err)
	}
	again, err := d.AddPushTarget(ctx, ann.ID, "ntfy://ntfy.sh/a", 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	if take(again.ID, t0.Add(6*time.Minute)) {
		t.Error("a target added again started the person's hour afresh")
	}
	// An hour after the first two, two places are free again.
	hour := t0.Add(time.Hour + time.Minute)
	if !take(again.ID, hour) || !take(0, hour) || take(0, hour) {
		t.Error("the hour after did not free the two oldest attempts alone")
	}
	if n, err := d.PruneAttempts(ctx, hour.Add(-time.Hour+time.Second)); n != 2 || err != nil {
		t.Errorf("pruned %d, %v; want the 2 attempts older than an hour", n, err)
	}
}
