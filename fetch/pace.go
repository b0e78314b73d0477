package fetch

import (
	"context"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"
)

// MaxHostDelay caps the delay a site may ask for between two requests, so
// a hint such as "1/h" slows its harvest without stalling it for hours.
const MaxHostDelay = 30 * time.Second

// pacer spaces the requests to a host by a minimum delay, for the hosts
// that asked for one (an ARC sitemap's crawl_rate). Requests reserve their
// slot under the lock, so concurrent ones queue in order. The zero value
// is ready to use.
type pacer struct {
	def   time.Duration // for every host: ClientOptions.MinHostDelay
	mu    sync.Mutex
	hosts map[string]*hostSlot
	// now and sleep come from ClientOptions; nil means the real clock.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// maxPacedHosts is how many hosts the pacer remembers before it forgets
// those whose next slot has passed: a forgotten host is paced as a new one,
// and a site's own delay is set again at its next harvest.
const maxPacedHosts = 4096

type hostSlot struct {
	delay time.Duration
	next  time.Time // no request to the host starts before this
}

// SetHostDelay makes requests to host (as in a URL: name and optional
// port) start at least d apart, capped at MaxHostDelay; d <= 0 removes the
// delay.
func (c *Client) SetHostDelay(host string, d time.Duration) {
	c.pace.set(strings.ToLower(host), min(d, MaxHostDelay))
}

// HostDelay returns the delay set for host, or 0.
func (c *Client) HostDelay(host string) time.Duration {
	p := &c.pace
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.hosts[strings.ToLower(host)]; s != nil {
		return s.delay
	}
	return 0
}

func (p *pacer) set(host string, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d = max(d, p.def)
	if d <= 0 {
		delete(p.hosts, host)
		return
	}
	if s := p.hosts[host]; s != nil {
		s.delay = d
		return
	}
	p.add(host, &hostSlot{delay: d})
}

// add remembers a new host, first forgetting the hosts whose slot has
// passed when too many are remembered. p.mu is held.
func (p *pacer) add(host string, s *hostSlot) {
	if p.hosts == nil {
		p.hosts = map[string]*hostSlot{}
	}
	if len(p.hosts) >= maxPacedHosts {
		t := p.clock()
		for h, old := range p.hosts {
			if old.next.Before(t) {
				delete(p.hosts, h)
			}
		}
	}
	p.hosts[host] = s
}

func (p *pacer) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// wait returns when a request to host may start, or with the context's
// error.
func (p *pacer) wait(ctx context.Context, host string) error {
	p.mu.Lock()
	s := p.hosts[strings.ToLower(host)]
	if s == nil && p.def > 0 {
		s = &hostSlot{delay: p.def}
		p.add(strings.ToLower(host), s)
	}
	if s == nil {
		p.mu.Unlock()
		return nil
	}
	t := p.clock()
	at := s.next
	if at.Before(t) {
		at = t
	}
	s.next = at.Add(s.delay)
	sleep := p.sleep
	p.mu.Unlock()
	d := at.Sub(t)
	if d <= 0 {
		return nil
	}
	if sleep != nil {
		return sleep(ctx, d)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sent keeps the delay after a request as the site sees it: a request
// written later than its slot (a slow connection, a busy machine) moves
// the next slot of its host to at least the delay after it was written,
// else two requests could reach the site closer than the delay.
func (p *pacer) sent(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.hosts[strings.ToLower(host)]
	if s == nil {
		return
	}
	if at := p.clock().Add(s.delay); s.next.Before(at) {
		s.next = at
	}
}

// traced is ctx with a trace that tells the pacer when each request to
// host is written.
func (p *pacer) traced(ctx context.Context, host string) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { p.sent(host) }})
}
