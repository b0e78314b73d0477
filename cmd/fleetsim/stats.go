package main

import (
	"fmt"
	"maps"
	"net/http"
	"time"
)

// Stats counts the requests a fleet answered.
type Stats struct {
	Requests    int         `json:"requests"`
	NotModified int         `json:"not_modified"`
	Bytes       int64       `json:"bytes"`
	ByStatus    map[int]int `json:"by_status"`
	Pages       int         `json:"pages"`       // requests for HTML pages, among Requests
	Conditional int         `json:"conditional"` // requests with If-None-Match or If-Modified-Since
	// Kinds splits the counts by the kind of site asked (see site.label).
	Kinds map[string]KindStats `json:"kinds"`
	// Overlapping counts the requests that came while another to the same
	// site was being answered; TooClose those that came sooner than
	// --politeness after the start of the one before: a polite client,
	// or several sharing their politeness, makes neither.
	Overlapping int `json:"overlapping"`
	TooClose    int `json:"too_close"`
	// ClosestMS is the shortest time between the starts of two requests
	// to one site, in milliseconds; 0 when no site had two.
	ClosestMS float64 `json:"closest_ms"`
}

// KindStats counts the requests to the sites of one kind.
type KindStats struct {
	Requests    int   `json:"requests"`
	Conditional int   `json:"conditional"`
	NotModified int   `json:"not_modified"`
	Pages       int   `json:"pages"`
	Sitemaps    int   `json:"sitemaps"` // requests for sitemap files
	Bytes       int64 `json:"bytes"`
}

// Stats returns the counts since the last Reset.
func (f *Fleet) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.stats
	st.ByStatus = maps.Clone(f.stats.ByStatus)
	st.Kinds = maps.Clone(f.stats.Kinds)
	return st
}

func newStats() Stats {
	return Stats{ByStatus: map[int]int{}, Kinds: map[string]KindStats{}}
}

// Reset zeroes the counts.
func (f *Fleet) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stats = newStats()
}

// count adds an answered request to the counts.
func (f *Fleet) count(s *site, r *http.Request, cw *countingWriter, isPage, isSitemap bool) {
	conditional := r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != ""
	notModified := cw.status == http.StatusNotModified
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stats.Requests++
	f.stats.Bytes += cw.n
	f.stats.ByStatus[cw.status]++
	k := f.stats.Kinds[s.label()]
	k.Requests++
	k.Bytes += cw.n
	if isPage {
		f.stats.Pages++
		k.Pages++
	}
	if isSitemap {
		k.Sitemaps++
	}
	if conditional {
		f.stats.Conditional++
		k.Conditional++
	}
	if notModified {
		f.stats.NotModified++
		k.NotModified++
	}
	f.stats.Kinds[s.label()] = k
	if f.log != nil {
		fmt.Fprintf(f.log, "%s %s %s %d %d\n", s.base, r.Method, r.URL.Path, cw.status, cw.n)
	}
}

// label is the key of the site's counts in Stats.Kinds: its kind, with
// "-novalidators" for a server that sends no validators, whose requests
// could not have been answered 304.
func (s *site) label() string {
	if s.plain != nil && !s.plain.validators {
		return string(s.kind) + "-novalidators"
	}
	return string(s.kind)
}

// arrived counts a request to s as it begins: whether it overlaps another
// or comes too soon after the one before.
func (f *Fleet) arrived(s *site) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if s.inFlight > 0 {
		f.stats.Overlapping++
	}
	if !s.lastStart.IsZero() {
		gap := now.Sub(s.lastStart)
		if f.politeness > 0 && gap < f.politeness {
			f.stats.TooClose++
		}
		if ms := float64(gap) / float64(time.Millisecond); f.stats.ClosestMS == 0 || ms < f.stats.ClosestMS {
			f.stats.ClosestMS = ms
		}
	}
	s.lastStart = now
	s.inFlight++
}

// left ends what arrived began.
func (f *Fleet) left(s *site) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s.inFlight--
}

// SetPoliteness sets the least time between two requests to a site that
// is not counted as too close; 0 counts none.
func (f *Fleet) SetPoliteness(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.politeness = d
}
