package harvest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fleetsite"
	"tidings/internal/pgtest"
)

// benchEntries is the sitemap protocol's limit of entries in one list.
const benchEntries = 50_000

// bigListSite serves a Source Description at the well-known place, one
// capability list and one change list of n entries. Nothing carries an ETag
// or Last-Modified, so every harvest downloads the whole list again, as a
// site without validators makes it do. With republish, every response ends
// in a different comment, so the body never repeats and must be parsed.
func bigListSite(b *testing.B, n int, now time.Time, republish bool) (*httptest.Server, int) {
	b.Helper()
	docs := map[string][]byte{}
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		w.Write(body)
		if republish {
			fmt.Fprintf(w, "<!-- served %d -->\n", served.Add(1))
		}
	}))
	b.Cleanup(srv.Close)
	base := srv.URL
	const head = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`
	docs["/.well-known/resourcesync"] = []byte(head + `  <rs:md capability="description"/>
  <url>
    <loc>` + base + `/big/capabilitylist.xml</loc>
    <rs:md capability="capabilitylist"/>
    <rs:ln rel="describes" href="` + base + `/big/"/>
  </url>
</urlset>
`)
	docs["/big/capabilitylist.xml"] = []byte(head + `  <rs:ln rel="up" href="` + base + `/.well-known/resourcesync"/>
  <rs:ln rel="describes" href="` + base + `/big/"/>
  <rs:md capability="capabilitylist"/>
  <url>
    <loc>` + base + `/big/changelist.xml</loc>
    <rs:md capability="changelist"/>
  </url>
</urlset>
`)
	docs["/big/changelist.xml"] = fleetsite.BigChangeList(base, n, now)
	return srv, len(docs["/big/changelist.xml"])
}

// benchHarvester is a harvester over a fresh database: a SQLite file, or
// with TIDINGS_TEST_ENGINE=postgres a database of its own on
// TIDINGS_TEST_POSTGRES's server, for the PostgreSQL figure.
func benchHarvester(b *testing.B) (*harvest.Harvester, *db.DB) {
	b.Helper()
	store, err := db.Open(context.Background(), pgtest.Target(b))
	if err != nil {
		b.Fatal(err)
	}
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/bench", AllowPrivate: true})
	return harvest.New(client, store, harvest.Options{}), store
}

// BenchmarkBigChangeList is scenario 1 of the benchmarks: a change list of
// 50,000 entries fetched, parsed, diffed and stored into a fresh database.
// Targets: under 0.5 s and 150 MB.
func BenchmarkBigChangeList(b *testing.B) {
	now := time.Now().UTC()
	srv, size := bigListSite(b, benchEntries, now, false)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var peak peakMeter
	for b.Loop() {
		b.StopTimer()
		h, store := benchHarvester(b)
		runtime.GC()
		peak.start()
		b.StartTimer()
		rep, err := h.Follow(context.Background(), srv.URL+"/big/")
		b.StopTimer()
		peak.stop()
		if err != nil {
			b.Fatalf("follow: %v", err)
		}
		if got := rep.Changes(); got != benchEntries {
			b.Fatalf("stored %d new changes, want %d", got, benchEntries)
		}
		store.Close()
		b.StartTimer()
	}
	peak.report(b)
}

// BenchmarkBigChangeListNothingNew harvests the same 50,000-entry list again.
// The server sends no validators, so the list is downloaded again; its
// digest shows it unchanged. Target: under 0.25 s.
func BenchmarkBigChangeListNothingNew(b *testing.B) {
	benchNothingNew(b, false)
}

// BenchmarkBigChangeListRepublished is the harder case of the same target:
// the list is served with a byte of difference each time, so it is parsed
// and every entry is found already processed.
func BenchmarkBigChangeListRepublished(b *testing.B) {
	benchNothingNew(b, true)
}

func benchNothingNew(b *testing.B, republish bool) {
	now := time.Now().UTC()
	srv, size := bigListSite(b, benchEntries, now, republish)
	h, store := benchHarvester(b)
	defer store.Close()
	if _, err := h.Follow(context.Background(), srv.URL+"/big/"); err != nil {
		b.Fatalf("follow: %v", err)
	}
	site, err := store.SiteByURL(context.Background(), srv.URL+"/")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var peak peakMeter
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		peak.start()
		b.StartTimer()
		rep, err := h.HarvestSite(context.Background(), site)
		b.StopTimer()
		peak.stop()
		if err != nil {
			b.Fatalf("harvest: %v", err)
		}
		if got := rep.Changes(); got != 0 {
			b.Fatalf("found %d new changes, want 0", got)
		}
		b.StartTimer()
	}
	peak.report(b)
}

// peakMeter records the highest Go heap (sampled every millisecond from
// runtime/metrics, which unlike runtime.ReadMemStats does not stop the
// world) and the process's peak RSS (VmHWM, reset through clear_refs) over
// the measured operations. SQLite's own memory is in the RSS only.
type peakMeter struct {
	heap, rss uint64
	done      chan struct{}
	wg        sync.WaitGroup
}

func (p *peakMeter) start() {
	resetPeakRSS()
	p.done = make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			p.heap = max(p.heap, s[0].Value.Uint64())
			select {
			case <-p.done:
				return
			case <-t.C:
			}
		}
	}()
}

func (p *peakMeter) stop() {
	close(p.done)
	p.wg.Wait()
	p.rss = max(p.rss, peakRSS())
}

func (p *peakMeter) report(b *testing.B) {
	b.ReportMetric(float64(p.heap)/1e6, "peak-heap-MB")
	if p.rss > 0 {
		b.ReportMetric(float64(p.rss)/1e6, "peak-RSS-MB")
	}
}

// resetPeakRSS makes VmHWM start again from the current RSS (Linux).
func resetPeakRSS() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS returns VmHWM in bytes, or 0 where there is none.
func peakRSS() uint64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
