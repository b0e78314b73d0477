package sitemap_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// rollingPages and rollingDays size BenchmarkRollingReread: a site of
// 2,000 pages, as scenario 9's big sites, harvested daily for three
// weeks, so that every page comes due at least twice.
const (
	rollingPages = 2000
	rollingDays  = 21
	// rollingHostDelay is tidings' default --host-delay: the harvests
	// here run without it, and what it would add is requests × it.
	rollingHostDelay = 250 * time.Millisecond
)

// BenchmarkRollingReread measures the rolling re-read of pages whose own
// date did not move (docs/harvest.md, "at least every 7 days"): a site of
// 2,000 pages, each with a lastmod of its own and none moving, served with
// ETags as static hosts do, is followed and read whole, then harvested
// daily for three weeks at the default budget of page fetches. It reports
// the pages re-read a harvest (mean and most), the requests, what the
// default host delay adds to the busiest harvest, the harvest's own time
// without that delay, and the longest a page went unread: the promise is
// at most 7 days (BENCHMARKS.md, scenario 9).
func BenchmarkRollingReread(b *testing.B) {
	// Not b.Loop: the setup of each run stops the timer.
	for range b.N {
		r := rollingReread(b)
		b.ReportMetric(r.meanReads, "reads/harvest")
		b.ReportMetric(float64(r.maxReads), "max-reads/harvest")
		b.ReportMetric(r.meanRequests, "requests/harvest")
		b.ReportMetric(float64(r.maxRequests), "max-requests/harvest")
		b.ReportMetric(float64(r.notModified)/float64(max(r.reads, 1))*100, "%304")
		b.ReportMetric((time.Duration(r.maxRequests) * rollingHostDelay).Seconds(), "delay-s/max-harvest")
		b.ReportMetric(r.meanWall.Seconds(), "s/harvest")
		b.ReportMetric(r.longestGap.Hours()/24, "max-unread-days")
		b.ReportMetric(float64(r.neverReread), "pages-never-reread")
	}
}

type rollingResult struct {
	meanReads, meanRequests float64
	maxReads, maxRequests   int
	reads, notModified      int
	meanWall                time.Duration
	longestGap              time.Duration
	neverReread             int
}

func rollingReread(b *testing.B) rollingResult {
	b.StopTimer()
	defer b.StartTimer()
	// The follow and the first harvest read every page, as a site whose
	// pages tidings has read before: what follows is the steady state.
	e := harvesttest.NewListEnv(b, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: 2 * rollingPages}})
	e.Site.ETags(true)
	v := map[string]sitemapsite.Page{}
	paths := make([]string, 0, rollingPages)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rollingPages {
		p := fmt.Sprintf("/notes/%04d/", i)
		paths = append(paths, p)
		v[p] = sitemapsite.Page{
			Title:   fmt.Sprintf("Note %d", i),
			Text:    fmt.Sprintf("Note %d of the garden journal.\nWhat grew in bed %d this season, and what the frost took.", i, i%37),
			Lastmod: start.Add(time.Duration(i) * 6 * time.Hour).Format(time.RFC3339),
		}
	}
	e.Site.Version("", v)
	harvesttest.Follow(b, e.H, e.Site.URL("/"))
	lastRead := map[string]time.Time{}
	followed := make([]int, len(paths))
	for i, p := range paths {
		followed[i] = e.Site.Hits(p)
		if followed[i] > 0 {
			lastRead[p] = e.Now
		}
	}
	e.Harvest()
	baseline := map[string]time.Time{}
	for i, p := range paths {
		if e.Site.Whole(p) == 0 {
			b.Fatalf("%s was not read whole by the follow and first harvest", p)
		}
		if e.Site.Hits(p) > followed[i] {
			lastRead[p] = e.Now
		}
		baseline[p] = lastRead[p]
	}

	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	h := harvest.New(client, e.Store, harvest.Options{
		Snapshots: harvest.SnapshotSettings{PageFetches: harvest.DefaultPageFetches},
		Now:       func() time.Time { return e.Now },
	})
	var r rollingResult
	var wall time.Duration
	hits := func() (pages, whole, all int) {
		for _, p := range paths {
			pages += e.Site.Hits(p)
			whole += e.Site.Whole(p)
		}
		return pages, whole, pages + e.Site.Hits("/sitemap.xml") + e.Site.Hits("/robots.txt")
	}
	for range rollingDays {
		before := make([]int, len(paths))
		for i, p := range paths {
			before[i] = e.Site.Hits(p)
		}
		p0, w0, a0 := hits()
		e.Now = e.Now.Add(24 * time.Hour)
		b.StartTimer()
		t0 := time.Now()
		harvesttest.HarvestSite(b, e.Store, h, e.Site.URL("/"))
		wall += time.Since(t0)
		b.StopTimer()
		p1, w1, a1 := hits()
		reads, requests := p1-p0, a1-a0
		r.reads += reads
		r.notModified += reads - (w1 - w0)
		r.maxReads = max(r.maxReads, reads)
		r.maxRequests = max(r.maxRequests, requests)
		r.meanReads += float64(reads) / rollingDays
		r.meanRequests += float64(requests) / rollingDays
		for i, p := range paths {
			if e.Site.Hits(p) > before[i] {
				r.longestGap = max(r.longestGap, e.Now.Sub(lastRead[p]))
				lastRead[p] = e.Now
			}
		}
	}
	// A page not read since its baseline has gone unread until today.
	for _, p := range paths {
		if lastRead[p].Equal(baseline[p]) {
			r.neverReread++
		}
		r.longestGap = max(r.longestGap, e.Now.Sub(lastRead[p]))
	}
	if slices.ContainsFunc(e.Changes(), func(c string) bool { return c != "" && c[0] == 'u' }) {
		b.Errorf("pages that did not change were reported updated: %q", e.Changes())
	}
	r.meanWall = wall / rollingDays
	return r
}
