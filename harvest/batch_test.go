package harvest

import (
	"context"
	"sync"
	"testing"
	"time"
)

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
	p.each(context.Background(), len(hosts), func(i int) string { return hosts[i] }, func(i int) {
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
