package harvest

// Occupy runs fn as a harvest of the site at siteURL on the scheduler's
// pool, taking a worker and the site's host until fn returns, as a
// harvest already under way does.
func (s *Scheduler) Occupy(siteURL string, fn func()) { s.pool.tryGo(hostOf(siteURL), fn) }

// Running is how many harvests the scheduler's pool runs now.
func (s *Scheduler) Running() int { return s.pool.running() }
