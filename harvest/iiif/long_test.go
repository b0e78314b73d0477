package iiif

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// longStream serves a stream of n pages of one activity each, a minute
// apart, the newest now: page i updates Manifest i. Each page read is
// counted.
type longStream struct {
	*httptest.Server
	mu    sync.Mutex
	n     int
	now   time.Time
	reads map[int]int
}

func newLongStream(t *testing.T, n int, now time.Time) *longStream {
	s := &longStream{n: n, now: now, reads: map[int]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *longStream) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", jsonType)
	if r.URL.Path == "/changes" {
		fmt.Fprintf(w, `{"id": "%s/changes", "type": "OrderedCollection", "last": {"id": "%s/page/%d"}}`, s.URL, s.URL, s.n-1)
		return
	}
	i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/page/"))
	if err != nil || i < 0 || i >= s.n {
		http.NotFound(w, r)
		return
	}
	s.reads[i]++
	prev := ""
	if i > 0 {
		prev = fmt.Sprintf(`"prev": {"id": "%s/page/%d"},`, s.URL, i-1)
	}
	at := s.now.Add(-time.Duration(s.n-1-i) * time.Minute)
	fmt.Fprintf(w, `{"type": "OrderedCollectionPage", %s "orderedItems": [{"type": "Update",
 "object": {"id": "%s/iiif/%d/manifest", "type": "Manifest", "label": {"en": ["Object %d"]}}, "endTime": %q}]}`,
		prev, s.URL, i, i, at.UTC().Format(time.RFC3339))
}

// grow adds k pages at the end.
func (s *longStream) grow(k int, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n += k
	s.now = now
}

// TestLongStreamReadOnce: a stream of 10,000 pages is read once, a
// budget of documents at a time, then only from its newest page back to
// the last harvest.
func TestLongStreamReadOnce(t *testing.T) {
	const pages, budget = 10_000, 2_500
	now := time.Now().UTC().Truncate(time.Minute)
	s := newLongStream(t, pages, now)
	o := harvest.Options{MaxDocuments: budget, Snapshots: harvest.SnapshotSettings{Off: true, PageFetches: harvest.DefaultPageFetches}}
	store, h := harvesttest.New(t, o)
	harvesttest.Follow(t, h, s.URL+"/changes")
	for i := 0; i < 5; i++ {
		harvesttest.HarvestSite(t, store, h, s.URL+"/")
	}
	// The newest page and the one before, which holds the activity
	// before the last harvest's time, are read at every harvest.
	for i := 0; i < pages-2; i++ {
		if s.reads[i] != 1 {
			t.Fatalf("page %d was read %d times, want once (of %d pages)", i, s.reads[i], pages)
		}
	}
	e := &env{t: t, store: store, site: &streamSite{Server: s.Server}}
	rows := e.rows()
	if len(rows) != pages {
		t.Fatalf("%d rows stored, want one per object, %d", len(rows), pages)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.url] || r.kind != "updated" {
			t.Fatalf("row %+v stored twice or of the wrong kind", r)
		}
		seen[r.url] = true
	}

	// Three new pages: the next harvest reads them back to the page of
	// the last harvest's newest activity (activities at that time are
	// read again, as the spec asks) and the one before, nothing older.
	before := s.reads[pages-2]
	s.grow(3, now.Add(3*time.Minute))
	harvesttest.HarvestSite(t, store, h, s.URL+"/")
	for i := 0; i < pages-2; i++ {
		if s.reads[i] != 1 {
			t.Fatalf("page %d was read %d times after the stream grew, want once", i, s.reads[i])
		}
	}
	if s.reads[pages-2] != before+1 {
		t.Errorf("page %d was read %d more times, want 1", pages-2, s.reads[pages-2]-before)
	}
	for i := pages; i < pages+3; i++ {
		if s.reads[i] != 1 {
			t.Errorf("new page %d was read %d times, want once", i, s.reads[i])
		}
	}
	if got := len(e.rows()); got != pages+3 {
		t.Errorf("%d rows after the stream grew, want %d", got, pages+3)
	}
}
