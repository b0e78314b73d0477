// Package fleetsite serves, for tests, one-collection ResourceSync sites
// each on a loopback port of its own, answering slowly and recording when
// each request came, so that a test of several processes harvesting them
// sees which requests to one host came too close.
package fleetsite

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Site is a one-collection ResourceSync site whose change list the test
// writes.
type Site struct {
	*httptest.Server
	delay time.Duration

	mu      sync.Mutex
	changes []string // the change list's entries
	times   [][2]time.Time
}

// New starts a site answering each request after delay, closed when the
// test ends.
func New(t testing.TB, delay time.Duration) *Site {
	s := &Site{delay: delay}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Root is the site's root address, as tidings stores it.
func (s *Site) Root() string { return s.URL + "/" }

const head = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	defer func() {
		s.mu.Lock()
		s.times = append(s.times, [2]time.Time{start, time.Now()})
		s.mu.Unlock()
	}()
	select {
	case <-time.After(s.delay):
	case <-r.Context().Done():
		return
	}
	base := s.URL
	var body string
	switch r.URL.Path {
	case "/.well-known/resourcesync":
		body = head + `<rs:md capability="description"/>
<url><loc>` + base + `/cap.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="` + base + `/"/></url>
</urlset>`
	case "/cap.xml":
		body = head + `<rs:ln rel="up" href="` + base + `/.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>` + base + `/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`
	case "/changes.xml":
		s.mu.Lock()
		body = head + `<rs:md capability="changelist"/>` + strings.Join(s.changes, "\n") + "</urlset>"
		s.mu.Unlock()
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Write([]byte(body))
}

// Change adds an update of page to the change list, at at.
func (s *Site) Change(page string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes = append(s.changes, fmt.Sprintf(`<url><loc>%s/%s</loc><rs:md change="updated" datetime="%s"/></url>`,
		s.URL, page, at.UTC().Format(time.RFC3339)))
}

// Closest returns the shortest time between the start of a request and
// the start of the next, how many requests overlapped another, and how
// many there were.
func (s *Site) Closest() (gap time.Duration, overlaps, requests int) {
	s.mu.Lock()
	times := slices.Clone(s.times)
	s.mu.Unlock()
	slices.SortFunc(times, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	gap = time.Hour
	for i := 1; i < len(times); i++ {
		gap = min(gap, times[i][0].Sub(times[i-1][0]))
		if times[i][0].Before(times[i-1][1]) {
			overlaps++
		}
	}
	return gap, overlaps, len(times)
}

// Forget forgets the requests received so far.
func (s *Site) Forget() {
	s.mu.Lock()
	s.times = nil
	s.mu.Unlock()
}
