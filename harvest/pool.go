package harvest

import (
	"context"
	"net/url"
	"sync"
)

// hostPool runs harvests on a bounded number of workers, never two for one
// host at a time: the politeness rule the scheduler, a bulk follow and a
// harvest of every site share. The per-host delay (Client) spaces the
// requests within one harvest; the pool keeps two harvests of a host from
// interleaving theirs.
type hostPool struct {
	mu    sync.Mutex
	hosts map[string]bool
	sem   chan struct{}
	freed chan struct{} // signalled, without blocking, when a worker frees up
	wg    sync.WaitGroup
}

func newHostPool(workers int) *hostPool {
	if workers <= 0 {
		workers = DefaultWorkers
	}
	return &hostPool{hosts: map[string]bool{}, sem: make(chan struct{}, workers), freed: make(chan struct{}, 1)}
}

// startResult says what tryGo did.
type startResult int

const (
	started  startResult = iota
	hostBusy             // another harvest of the host is under way
	poolFull             // every worker is busy
)

// tryGo runs fn on a free worker unless the host is busy or no worker is
// free; it never waits.
func (p *hostPool) tryGo(host string, fn func()) startResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hosts[host] {
		return hostBusy
	}
	select {
	case p.sem <- struct{}{}:
	default:
		return poolFull
	}
	p.hosts[host] = true
	p.wg.Go(func() {
		defer func() {
			p.mu.Lock()
			delete(p.hosts, host)
			p.mu.Unlock()
			<-p.sem
			select {
			case p.freed <- struct{}{}:
			default:
			}
		}()
		fn()
	})
	return started
}

// running counts the harvests under way.
func (p *hostPool) running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.hosts)
}

// wait returns when every harvest started has ended.
func (p *hostPool) wait() { p.wg.Wait() }

// each runs fn(i) for i in [0, n) on the pool, in order as far as workers
// and hosts allow: an item whose host is busy waits for it, the items
// after it go ahead. It returns when every item started has ended; once
// ctx ends, no further item starts.
func (p *hostPool) each(ctx context.Context, n int, host func(i int) string, fn func(i int)) {
	pending := make([]int, n)
	for i := range pending {
		pending[i] = i
	}
	for len(pending) > 0 && ctx.Err() == nil {
		rest := pending[:0]
		full := false
		for _, i := range pending {
			if !full {
				switch p.tryGo(host(i), func() { fn(i) }) {
				case started:
					continue
				case poolFull:
					full = true
				}
			}
			rest = append(rest, i)
		}
		pending = rest
		if len(pending) == 0 {
			break
		}
		select {
		case <-p.freed:
		case <-ctx.Done():
		}
	}
	p.wait()
}

// hostOf is the politeness key of a site: its host and port, as each port
// may be another server.
func hostOf(siteURL string) string {
	u, err := url.Parse(siteURL)
	if err != nil {
		return siteURL
	}
	return u.Host
}
