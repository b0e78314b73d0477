package harvest

import (
	"context"
	"time"
)

// SetPacerClock replaces the clock of c's per-host delays, for tests in
// package harvest_test.
func SetPacerClock(c *Client, now func() time.Time, sleep func(context.Context, time.Duration) error) {
	c.pace.mu.Lock()
	defer c.pace.mu.Unlock()
	c.pace.now, c.pace.sleep = now, sleep
}
