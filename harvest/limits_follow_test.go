package harvest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// longListSite serves a ResourceSync site whose change list index points
// at lists of changes to long URLs, newest list first. While it answers a
// request for a list, the harvest that asked holds what it read so far, so
// it measures the live heap then.
type longListSite struct {
	*httptest.Server
	docs map[string]string

	mu       sync.Mutex
	peakHeap uint64
}

const longURLPad = 1900

func newLongListSite(t *testing.T, lists, perList int, start time.Time) *longListSite {
	s := &longListSite{docs: map[string]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	base := s.URL
	s.docs["/.well-known/resourcesync"] = harvesttest.PlainHead + `<rs:md capability="description"/>
<url><loc>` + base + `/cap.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="` + base + `/"/></url>
</urlset>`
	s.docs["/cap.xml"] = harvesttest.PlainHead + `<rs:md capability="capabilitylist"/>
<url><loc>` + base + `/index.xml</loc><rs:md capability="changelist"/></url>
</urlset>`
	var index strings.Builder
	index.WriteString(strings.Replace(harvesttest.PlainHead, "<urlset", "<sitemapindex", 1) + `<rs:md capability="changelist"/>`)
	pad := strings.Repeat("p", longURLPad)
	for l := lists - 1; l >= 0; l-- {
		fmt.Fprintf(&index, "<sitemap><loc>%s/list%d.xml</loc></sitemap>\n", base, l)
		var list strings.Builder
		list.WriteString(harvesttest.PlainHead + `<rs:md capability="changelist"/>`)
		for i := range perList {
			n := l*perList + i
			at := start.Add(time.Duration(n) * time.Second).Format(time.RFC3339)
			fmt.Fprintf(&list, `<url><loc>%s/%s/%06d</loc><rs:md change="updated" datetime="%s"/></url>`+"\n", base, pad, n, at)
		}
		list.WriteString("</urlset>")
		s.docs[fmt.Sprintf("/list%d.xml", l)] = list.String()
	}
	index.WriteString("</sitemapindex>")
	s.docs["/index.xml"] = index.String()
	return s
}

func (s *longListSite) serve(w http.ResponseWriter, r *http.Request) {
	body, ok := s.docs[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/list") {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s.mu.Lock()
		s.peakHeap = max(s.peakHeap, m.HeapAlloc)
		s.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Write([]byte(body))
}

// changeNumber reads back the number a longListSite URL ends with.
func changeNumber(t *testing.T, u string) int {
	var n int
	if _, err := fmt.Sscanf(u[strings.LastIndexByte(u, '/')+1:], "%d", &n); err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	return n
}

// TestHarvestHoldsAtMostMaxChanges: a harvest keeps the oldest MaxChanges
// changes, says that more wait, moves the watermark to the newest kept,
// and the next harvests store the rest, then nothing; while reading, it
// holds no more than the changes it keeps.
func TestHarvestHoldsAtMostMaxChanges(t *testing.T) {
	recent := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	start, round := harvestInRounds(t, recent)
	for i, r := range round {
		if r.Backfilled != 0 {
			t.Errorf("harvest %d: %d changes from %s stored as history", i+1, r.Backfilled, start)
		}
	}
}

// TestHistoryReadOverSeveralHarvestsStaysHistory: a backlog older than
// the first harvest's window, read over several harvests, is history in
// each, not news in the second.
func TestHistoryReadOverSeveralHarvestsStaysHistory(t *testing.T) {
	old := time.Now().Add(-90 * 24 * time.Hour).Truncate(time.Second)
	_, round := harvestInRounds(t, old)
	for i, r := range round {
		if r.Changes != 0 {
			t.Errorf("harvest %d put %d changes of 90 days ago in the feed", i+1, r.Changes)
		}
	}
}

// harvestInRounds follows a longListSite of changes from start on, then
// harvests it until a harvest stores nothing, checking each harvest's
// limit, and returns each harvest's collection run.
func harvestInRounds(t *testing.T, start time.Time) (time.Time, []db.Run) {
	const lists, perList, limit = 16, 500, 1500
	site := newLongListSite(t, lists, perList, start)
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{MaxChanges: limit}))

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rep := harvesttest.Follow(t, h, site.URL+"/")
	held := int64(site.peakHeap) - int64(before.HeapAlloc)
	// 1,500 changes of 2,000-byte URLs are 3.4 MB; holding all 7,500
	// read before the last list was 17 MB.
	if held > 6<<20 {
		t.Errorf("the harvest held %d MB while reading, want under 6 MB", held>>20)
	}

	total := lists * perList
	stored := 0
	var runs []db.Run
	for round := 1; ; round++ {
		if round > 1 {
			rep = harvesttest.HarvestSite(t, store, h, site.URL+"/")
		}
		run := rep.Collections[0].Run
		runs = append(runs, run)
		got := run.Changes + run.Backfilled
		if got > limit {
			t.Fatalf("harvest %d stored %d changes, more than %d", round, got, limit)
		}
		waits := slices.ContainsFunc(run.Warnings, func(w string) bool {
			return strings.Contains(w, "wait for the next harvest") && strings.Contains(w, fmt.Sprint(limit))
		})
		// After the first, a harvest reads again the change dated at the
		// watermark, already stored.
		if left := total - stored; left > limit && (got < limit-1 || !waits) {
			t.Fatalf("harvest %d: %d changes stored (want %d), warning %v; warnings %q",
				round, got, limit, waits, run.Warnings)
		} else if left <= limit && waits {
			t.Errorf("harvest %d: warned with %d changes left", round, left)
		}
		stored += got
		if got == 0 {
			break
		}
		if round > total/limit+2 {
			t.Fatalf("still storing after %d harvests", round)
		}
	}
	if stored != total {
		t.Errorf("stored %d changes in all, want %d", stored, total)
	}
	seen := map[int]bool{}
	for _, u := range harvesttest.StoredURLs(t, store, site.URL) {
		seen[changeNumber(t, u)] = true
	}
	if len(seen) != total {
		t.Errorf("%d distinct changes stored, want %d", len(seen), total)
	}
	return start, runs
}

// TestUnbelievableDatesAreRefused: a change dated before 1991, or more
// than a day after the harvest, is not stored; a warning counts them.
func TestUnbelievableDatesAreRefused(t *testing.T) {
	site := harvesttest.NewChangeListSite(t)
	now := time.Now().UTC()
	soon := now.Add(2 * time.Hour).Format(time.RFC3339)
	site.Set("/changes.xml", harvesttest.PlainHead+`<rs:md capability="changelist"/>
<url><loc>BASE/epoch.html</loc><rs:md change="updated" datetime="1970-01-01T00:00:00Z"/></url>
<url><loc>BASE/early.html</loc><rs:md change="updated" datetime="1990-12-31T23:59:59Z"/></url>
<url><loc>BASE/web.html</loc><rs:md change="created" datetime="1991-01-01"/></url>
<url><loc>BASE/soon.html</loc><rs:md change="updated" datetime="`+soon+`"/></url>
<url><loc>BASE/far.html</loc><rs:md change="updated" datetime="9999-12-31T00:00:00Z"/></url>
<url><loc>BASE/later.html</loc><rs:md change="updated" datetime="`+now.Add(49*time.Hour).Format(time.RFC3339)+`"/></url>
</urlset>`)
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	rep := harvesttest.Follow(t, h, site.URL+"/")
	if got, want := harvesttest.StoredURLs(t, store, site.URL), []string{"/soon.html", "/web.html"}; !slices.Equal(got, want) {
		t.Errorf("stored %q, want %q", got, want)
	}
	warns := rep.Collections[0].Run.Warnings
	for _, want := range []string{
		"ignored 2 changes dated before 1991, before the web began",
		"ignored 2 changes dated more than a day after this harvest (the latest on 9999-12-31), which would stay on top of the feed",
	} {
		if !slices.Contains(warns, want) {
			t.Errorf("warnings %q lack %q", warns, want)
		}
	}
	// Read again, the far one is refused again, not dated anew.
	harvesttest.HarvestSite(t, store, h, site.URL+"/")
	if got := harvesttest.StoredURLs(t, store, site.URL); len(got) != 2 {
		t.Errorf("after a second harvest, stored %q", got)
	}
}
