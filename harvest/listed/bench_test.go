package listed

import (
	"bytes"
	"context"
	"fmt"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/harvest/pageset"
	"tidings/sitemap"
)

// BenchmarkSitemapDiff50k parses a 50,000-URL sitemap and compares it
// with the 50,000 pages stored from the last harvest: 250 lastmods
// moved, 250 pages new, 250 gone (target: < 0.5 s and < 150 MB a run,
// BENCHMARKS.md). Snapshots are off, so no page is read: what is
// measured is the parse and the diff.
func BenchmarkSitemapDiff50k(b *testing.B) {
	const root = "https://example.org/"
	t0 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(24 * time.Hour)
	now := t1.Add(24 * time.Hour)
	stored := make(map[string]db.Page, sitemap.MaxURLs)
	var sb bytes.Buffer
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := range sitemap.MaxURLs {
		u := fmt.Sprintf("%sposts/%06d/", root, i)
		was, mod := t0, t0
		stored[u] = db.Page{URL: u, Modified: &was}
		switch {
		case i < 250:
			// gone: stored, not listed; a new page takes its place
			u = fmt.Sprintf("%snew/%06d/", root, i)
		case i < 500:
			mod = t1
		}
		fmt.Fprintf(&sb, "<url><loc>%s</loc><lastmod>%s</lastmod></url>\n", u, mod.Format(time.RFC3339))
	}
	sb.WriteString("</urlset>\n")
	body := sb.Bytes()
	hv := harvest.New(nil, nil, harvest.Options{Snapshots: harvest.SnapshotSettings{Off: true}, Now: func() time.Time { return now }})
	col := db.Collection{ID: 1, Key: root, SourceURL: root + "sitemap.xml"}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	// On a shared machine wall time says more of the neighbours than of
	// this code: CPU time and the peak heap are reported too.
	peak := samplePeakHeap(b)
	cpu0 := cpuTime()
	for b.Loop() {
		doc, err := sitemap.Parse(bytes.NewReader(body), sitemap.Options{Scope: root})
		if err != nil {
			b.Fatal(err)
		}
		r := hv.NewCollectionRun(col, now)
		lh := &Harvest{CollectionRun: r, col: col, now: now, created: map[string]bool{}, read: map[string]bool{}, set: pageset.New(stored)}
		pages := make([]db.Page, len(doc.URLs))
		for i, u := range doc.URLs {
			pages[i] = db.Page{URL: u.Loc, Modified: NotAfter(u.Lastmod, now)}
		}
		if err := lh.compare(context.Background(), pages, true); err != nil {
			b.Fatal(err)
		}
		_, gone := lh.set.ToStore()
		if changes := r.Changes(); len(changes) != 750 || len(gone) != 250 {
			kinds := map[string]int{}
			for _, c := range changes {
				kinds[c.Kind]++
			}
			b.Fatalf("%d changes %v, %d gone; want 750 and 250", len(changes), kinds, len(gone))
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// samplePeakHeap samples the live heap every few milliseconds until the
// returned func is called, which returns the highest seen.
func samplePeakHeap(b *testing.B) func() uint64 {
	b.Helper()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return peak.Load()
	}
}
