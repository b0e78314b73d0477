package pages

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// countingWriter counts what a handler wrote.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w countingWriter) Write(b []byte) (int, error) {
	k, err := w.ResponseWriter.Write(b)
	w.n.Add(int64(k))
	return k, err
}

// TestSiteHarvestByteBudget: a site whose 500 links are endless pages
// costs its first harvest its download budget (--site-bytes), not the
// snapshot limit times the pages a crawl reads; the run says the budget
// was spent, and the links it did not read are not set aside as broken:
// the next harvest reads on.
func TestSiteHarvestByteBudget(t *testing.T) {
	const budget = 16 << 20
	var links []string
	for i := range 500 {
		links = append(links, fmt.Sprintf("/p%d.html", i))
	}
	var written atomic.Int64
	site := newHostileSite(t, links, func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/p") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		endless(countingWriter{w, &written}, r, "<p>"+strings.Repeat("words of an endless page ", 400)+"</p>\n")
	})
	store, h := harvesttest.New(t, harvest.Options{MaxSiteBytes: budget})
	rep, err := h.Follow(context.Background(), site.URL+"/")
	if err != nil {
		t.Fatalf("follow: %v", err)
	}
	// Each page costs the snapshot limit: the budget pays for that many,
	// and the one it cuts short.
	pageCost := int64(h.Options().Snapshots.MaxBody)
	if n := site.hitsOf("/p"); int64(n) > budget/pageCost+1 {
		t.Errorf("the first harvest asked for %d endless pages of %d bytes each, more than a budget of %d pays for", n, pageCost, budget)
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, "the most one harvest of a site may (--site-bytes)") {
		t.Errorf("warnings %q, want the budget named", w)
	}
	first := site.hitsOf("/p")
	s, err := store.SiteByURL(context.Background(), site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.HarvestSite(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if next := site.hitsOf("/p") - first; next == 0 {
		t.Errorf("the next harvest asked for no page after the first asked for %d: the pages not read were set aside", first)
	}
	t.Logf("first harvest: %d pages asked for; the site wrote %d bytes, socket buffers included", first, written.Load())
}
