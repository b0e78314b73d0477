package harvest

import (
	"testing"
	"time"
)

func TestNextHarvestJitterBackoffRetryAfter(t *testing.T) {
	h := New(nil, nil, Options{Interval: 24 * time.Hour, Rand: func() float64 { return 0 }})
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if got := h.nextHarvest(start, false, 0, 0).Sub(start); got != 24*time.Hour-144*time.Minute {
		t.Errorf("success with the lowest jitter: %v, want 21h36m", got)
	}
	h.opts.Rand = func() float64 { return 0.999999 }
	if got := h.nextHarvest(start, false, 0, 0).Sub(start); got < 26*time.Hour+23*time.Minute || got > 26*time.Hour+24*time.Minute {
		t.Errorf("success with the highest jitter: %v, want about 26h24m", got)
	}
	want := []time.Duration{5 * time.Minute, 10 * time.Minute, 20 * time.Minute, 40 * time.Minute, 80 * time.Minute,
		160 * time.Minute, 320 * time.Minute, 640 * time.Minute, 1280 * time.Minute, 24 * time.Hour, 24 * time.Hour}
	for n, w := range want {
		if got := h.nextHarvest(start, true, n, 0).Sub(start); got != w {
			t.Errorf("after %d earlier failures: wait %v, want %v", n, got, w)
		}
	}
	if got := h.nextHarvest(start, true, 0, 3*time.Hour).Sub(start); got != 3*time.Hour {
		t.Errorf("failure with Retry-After 3h: %v", got)
	}
	if got := h.nextHarvest(start, false, 0, 30*24*time.Hour).Sub(start); got != 7*24*time.Hour {
		t.Errorf("a month-long Retry-After: %v, want the 7-day cap", got)
	}
}

func TestJitterSpreadsSitesFollowedTogether(t *testing.T) {
	h := New(nil, nil, Options{Interval: 24 * time.Hour})
	start := time.Now()
	lo, hi := time.Duration(1<<62), time.Duration(0)
	for range 1000 {
		d := h.nextHarvest(start, false, 0, 0).Sub(start)
		lo, hi = min(lo, d), max(hi, d)
	}
	if hi-lo < 4*time.Hour {
		t.Errorf("1,000 sites harvested together are next due within %v of each other; want them spread over hours", hi-lo)
	}
}
