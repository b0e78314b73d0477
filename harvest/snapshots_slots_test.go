package harvest

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// waitQueued waits until n acquirers wait on s.
func waitQueued(t *testing.T, s *slots, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.mu.Lock()
		k := len(s.waiting)
		s.mu.Unlock()
		if k == n {
			return
		}
	}
	t.Fatalf("%d waiters never queued", n)
}

// The oldest waiter gets the next slot, whatever the order they came in.
func TestSlotsOldestFirst(t *testing.T) {
	ctx := context.Background()
	s := newSlots(1)
	if !s.acquire(ctx, 100) {
		t.Fatal("a free slot was refused")
	}
	got := make(chan uint64, 3)
	for _, age := range []uint64{5, 3, 9} {
		go func() {
			if s.acquire(ctx, age) {
				got <- age
			}
		}()
		waitQueued(t, s, map[uint64]int{5: 1, 3: 2, 9: 3}[age])
	}
	for _, want := range []uint64{3, 5, 9} {
		s.release()
		if age := <-got; age != want {
			t.Fatalf("slot went to age %d, want %d", age, want)
		}
	}
	s.release()
	if s.free != 1 || len(s.waiting) != 0 {
		t.Errorf("after all: %d free, %d waiting", s.free, len(s.waiting))
	}
}

// A waiter whose context ends gives up its place, and no slot is lost
// however acquirers, releases and cancellations interleave.
func TestSlotsCancel(t *testing.T) {
	s := newSlots(1)
	s.acquire(context.Background(), 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() { done <- s.acquire(ctx, 0) }()
	waitQueued(t, s, 1)
	cancel()
	if <-done {
		t.Fatal("a cancelled waiter got a slot")
	}
	s.release()
	if s.free != 1 || len(s.waiting) != 0 {
		t.Fatalf("after a cancelled wait: %d free, %d waiting", s.free, len(s.waiting))
	}

	s = newSlots(2)
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(200))*time.Microsecond)
			defer cancel()
			if s.acquire(ctx, uint64(i)) {
				time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
				s.release()
			}
		})
	}
	wg.Wait()
	if s.free != 2 || len(s.waiting) != 0 {
		t.Errorf("after 200 acquirers: %d free, %d waiting; want 2 and 0", s.free, len(s.waiting))
	}
}
