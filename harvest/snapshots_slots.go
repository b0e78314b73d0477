package harvest

import (
	"container/heap"
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// extractions holds a slot for each snapshot being extracted, diffed and
// compressed. That work is CPU-bound and its garbage is most of what a
// site harvest holds in memory beyond its finished snapshots (a parsed
// tree, readability's copies, the old and new texts, the diff): site
// harvests waiting on their hosts can be many more than the cores, and
// without a bound 100 at once held half a gigabyte.
//
// Slots go to the oldest site harvest waiting. Each harvest holds its
// pages' snapshots until it stores them; taking turns, 100 harvests of 100
// pages would all near their end together and hold 10,000 at once, where
// oldest first finishes them one after the other. A harvest waits only
// while older ones are extracting, so none waits for ever.
var extractions = newSlots(runtime.GOMAXPROCS(0))

// harvestAge numbers site harvests as they start: the smaller, the older.
var harvestAge atomic.Uint64

// slots is a counting semaphore whose waiters are served by age.
type slots struct {
	mu      sync.Mutex
	free    int
	waiting waiters
}

type waiter struct {
	age   uint64
	ready chan struct{} // closed when the slot is handed over
	index int           // in the heap; -1 once handed over
}

func newSlots(n int) *slots { return &slots{free: n} }

// acquire waits for a slot, false when ctx ended first. A slot taken is
// given back with release.
func (s *slots) acquire(ctx context.Context, age uint64) bool {
	s.mu.Lock()
	if s.free > 0 && len(s.waiting) == 0 {
		s.free--
		s.mu.Unlock()
		return true
	}
	w := &waiter{age: age, ready: make(chan struct{})}
	heap.Push(&s.waiting, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return true
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.index < 0 {
		// Handed over as ctx ended: pass it on.
		s.releaseLocked()
		return false
	}
	heap.Remove(&s.waiting, w.index)
	return false
}

// release gives a slot back, to the oldest waiter if there is one.
func (s *slots) release() {
	s.mu.Lock()
	s.releaseLocked()
	s.mu.Unlock()
}

func (s *slots) releaseLocked() {
	if len(s.waiting) == 0 {
		s.free++
		return
	}
	w := heap.Pop(&s.waiting).(*waiter)
	close(w.ready)
}

// waiters is a min-heap by age.
type waiters []*waiter

func (h waiters) Len() int           { return len(h) }
func (h waiters) Less(i, j int) bool { return h[i].age < h[j].age }
func (h waiters) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waiters) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waiters) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.index = -1
	return w
}
