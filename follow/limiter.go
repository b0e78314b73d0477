package follow

import (
	"sync"
	"time"
)

// limiter allows an action once per interval for each key (a site's
// "harvest now" button).
type limiter struct {
	every time.Duration
	mu    sync.Mutex
	last  map[int64]time.Time
}

func newLimiter(every time.Duration) *limiter {
	return &limiter{every: every, last: map[int64]time.Time{}}
}

// allow reports whether key may act now, and if so records it; otherwise
// it returns how long to wait.
func (l *limiter) allow(key int64, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if last, ok := l.last[key]; ok && now.Sub(last) < l.every {
		return false, l.every - now.Sub(last)
	}
	for k, t := range l.last {
		if now.Sub(t) >= l.every {
			delete(l.last, k)
		}
	}
	l.last[key] = now
	return true, 0
}
