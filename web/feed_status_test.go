package web

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/feeds"
	"tidings/fetch"
	"tidings/harvest"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// statusEntry is a status entry as a feed shows it.
type statusEntry struct {
	id, title string
	updated   time.Time
}

func statusEntries(t *testing.T, h http.Handler, path string) []statusEntry {
	t.Helper()
	var out []statusEntry
	for _, it := range anyFeed(t, h, path).Items {
		if strings.Contains(it.GUID, "/outage/") {
			d := it.UpdatedParsed
			if d == nil {
				d = it.PublishedParsed
			}
			out = append(out, statusEntry{it.GUID, it.Title, d.UTC()})
		}
	}
	return out
}

// TestStatusEntriesOverAWeek harvests the fixture site every six hours of
// a simulated week while its change lists fail now and then. A streak of
// failures longer than three days gives one status entry, and one more
// when it ends; a short one gives none; neither is ever repeated.
func TestStatusEntriesOverAWeek(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	start := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	clock := &fakeClock{now: start}
	harvester := harvest.New(fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-test"}), fx.store, harvest.Options{Now: clock.Now})
	site, err := fx.store.SiteByID(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	h := fx.server(t)
	day := func(d float64) time.Time { return start.Add(time.Duration(d * float64(24*time.Hour))) }
	within := func(from, until float64) func(float64) bool {
		return func(d float64) bool { return d >= from && d < until }
	}
	shrineDown := []func(float64) bool{within(1, 5), within(5.5, 6)}
	galleryDown := within(3.5, 99)

	paths := []string{"/feeds/1.atom", "/feeds/2.atom", "/sites/1.atom", "/feeds/1.atom?entries=page"}
	seen := map[string][]statusEntry{}
	for step := 1; step <= 28; step++ {
		d := float64(step) / 4
		down := slices.ContainsFunc(shrineDown, func(f func(float64) bool) bool { return f(d) })
		fx.site.Fail("/shrine/changelist-index.xml", map[bool]int{true: http.StatusInternalServerError}[down])
		fx.site.Fail("/gallery/changes.xml", map[bool]int{true: http.StatusServiceUnavailable}[galleryDown(d)])
		clock.Set(day(d))
		if _, err := harvester.HarvestSite(t.Context(), site); err != nil {
			t.Fatalf("day %.2f: %v", d, err)
		}
		for _, p := range paths {
			now := statusEntries(t, h, public(t, fx.store, p))
			for _, e := range seen[p] {
				if !slices.Contains(now, e) {
					t.Errorf("day %.2f: %s lost or changed status entry %+v", d, p, e)
				}
			}
			ids := map[string]bool{}
			for _, e := range now {
				if ids[e.id] {
					t.Errorf("day %.2f: %s repeats %s", d, p, e.id)
				}
				ids[e.id] = true
			}
			seen[p] = now
		}
	}

	shrine := []statusEntry{
		{title: "Harvests of My Shrine & Co work again", updated: day(5)},
		{title: "Harvests of My Shrine & Co have failed since " + day(1).Format("2 Jan 2006 15:04 UTC"), updated: day(4.25)},
	}
	gallery := []statusEntry{
		{title: "Harvests of " + fx.url("/gallery/") + " have failed since " + day(3.5).Format("2 Jan 2006 15:04 UTC"), updated: day(6.75)},
	}
	want := map[string][]statusEntry{
		"/feeds/1.atom": shrine, "/feeds/1.atom?entries=page": shrine, "/feeds/2.atom": gallery,
		"/sites/1.atom": {gallery[0], shrine[0], shrine[1]},
	}
	for _, p := range paths {
		got := seen[p]
		if len(got) != len(want[p]) {
			t.Errorf("%s after a week: status entries %+v, want %+v", p, got, want[p])
			continue
		}
		for i, w := range want[p] {
			if got[i].title != w.title || !got[i].updated.Equal(w.updated) {
				t.Errorf("%s status entry %d: %q at %v, want %q at %v", p, i, got[i].title, got[i].updated, w.title, w.updated)
			}
		}
		for _, f := range []feeds.Format{feeds.RSS, feeds.JSON} {
			other := statusEntries(t, h, public(t, fx.store, withFormat(p, f)))
			if !slices.Equal(other, got) {
				t.Errorf("%s as %s: status entries %+v, want %+v", p, f, other, got)
			}
		}
	}
	if e := seen["/feeds/1.atom"]; len(e) == 2 && !strings.HasSuffix(e[1].id, "/failing") {
		t.Errorf("failing entry id %q", e[1].id)
	}
	body := serve(t, h, public(t, fx.store, "/feeds/2.atom")).Body.String()
	if !strings.Contains(body, fmt.Sprintf("returned %d", http.StatusServiceUnavailable)) {
		t.Errorf("the failing entry does not say what failed:\n%s", body)
	}
}
