package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows `tidings harvest` under way. On a terminal a bar at the
// bottom says how many sites are done, which one began last and for how
// long the run has gone on, with each site's report printed above it; anywhere
// else only the reports are written, one site after another.
type progress struct {
	w       io.Writer
	started time.Time
	total   int

	mu   sync.Mutex // orders the bar's redraws against the reports
	bar  *progressbar.ProgressBar
	stop chan struct{}
	wg   sync.WaitGroup
}

// maxDescription keeps the bar on one line of a narrow terminal: a line
// that wraps cannot be redrawn in place.
const maxDescription = 40

func newProgress(w io.Writer, total int, tty bool) *progress {
	p := &progress{w: w, started: time.Now(), total: total}
	if !tty {
		return p
	}
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetWidth(20),
		progressbar.OptionClearOnFinish(),
	)
	// The bar redraws only when told to: keep the elapsed time ticking
	// while one slow site is harvested.
	p.stop = make(chan struct{})
	p.wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.bar.RenderBlank()
				p.mu.Unlock()
			}
		}
	})
	return p
}

// isTerminal tells whether w is a terminal, where a bar can be redrawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// start names the site whose harvest began last (several may be under
// way).
func (p *progress) start(site string) {
	if p.bar == nil {
		return
	}
	if r := []rune(site); len(r) > maxDescription {
		site = string(r[:maxDescription-1]) + "…"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Describe(site)
	p.bar.RenderBlank()
}

// done prints one site's report (above the bar) and counts the site.
// The report carries site text, so it goes through a termWriter; the bar
// does not, its escapes are its own.
func (p *progress) done(report func(io.Writer)) {
	if p.bar == nil {
		report(newTermWriter(p.w))
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Clear()
	report(newTermWriter(p.w))
	p.bar.Add(1)
}

// close removes the bar, saying how many sites were harvested and how long
// it took.
func (p *progress) close(harvested int) {
	if p.bar == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.bar.Clear()
	p.bar.Exit()
	fmt.Fprintf(p.w, "Harvested %d of %d site(s) in %s.\n", harvested, p.total, time.Since(p.started).Round(time.Second))
}
