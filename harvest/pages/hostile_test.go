package pages

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// hostileSite serves a home page linking the paths of its handlers.
type hostileSite struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newHostileSite(t *testing.T, links []string, serve func(w http.ResponseWriter, r *http.Request)) *hostileSite {
	s := &hostileSite{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
			var b strings.Builder
			b.WriteString("<!doctype html><title>Home</title><p>The home page.</p>")
			for _, l := range links {
				fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
			}
			fmt.Fprint(w, b.String())
			return
		}
		serve(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *hostileSite) hitsOf(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, k := range s.hits {
		if strings.HasPrefix(p, prefix) {
			n += k
		}
	}
	return n
}

// endless writes chunk until the client goes away.
func endless(w http.ResponseWriter, r *http.Request, chunk string) {
	for r.Context().Err() == nil {
		if _, err := w.Write([]byte(chunk)); err != nil {
			return
		}
	}
}

// readBytes runs a harvest under a budget that only counts, and returns
// the bytes it read.
func readBytes(t *testing.T, run func(ctx context.Context)) int64 {
	t.Helper()
	b := fetch.NewBudget("", 1<<40)
	run(fetch.WithBudget(context.Background(), b))
	return b.Used()
}

// TestCrawlSetsAsideEndlessLinks: a site linking 20 endless pages and 20
// endless files costs its first harvest the snapshot limit a page and
// nothing a file, and the next harvest neither again.
func TestCrawlSetsAsideEndlessLinks(t *testing.T) {
	var links []string
	for i := range 20 {
		links = append(links, fmt.Sprintf("/page%d.html", i), fmt.Sprintf("/file%d", i))
	}
	site := newHostileSite(t, links, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/page"):
			w.Header().Set("Content-Type", "text/html")
			endless(w, r, "<p>"+strings.Repeat("words of an endless page ", 400)+"</p>\n")
		case strings.HasPrefix(r.URL.Path, "/file"):
			w.Header().Set("Content-Type", "application/octet-stream")
			endless(w, r, strings.Repeat("\x00\x01\x02\x03", 2500))
		default:
			http.NotFound(w, r)
		}
	})
	store, h := harvesttest.New(t, harvest.Options{})
	first := readBytes(t, func(ctx context.Context) {
		if _, err := h.Follow(ctx, site.URL+"/"); err != nil {
			t.Fatalf("follow: %v", err)
		}
	})
	if limit := int64(100 << 20); first > limit {
		t.Errorf("the first harvest read %d bytes, more than %d", first, limit)
	}
	if n := site.hitsOf("/file"); n != 20 {
		t.Errorf("%d requests for the 20 files, want one each", n)
	}
	var rep *harvest.SiteReport
	next := readBytes(t, func(ctx context.Context) {
		s, err := store.SiteByURL(ctx, site.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		if rep, err = h.HarvestSite(ctx, s); err != nil {
			t.Fatal(err)
		}
	})
	if next > first/10 {
		t.Errorf("the next harvest read %d bytes, more than a tenth of the first's %d", next, first)
	}
	if n := site.hitsOf("/page") + site.hitsOf("/file"); n != 40 {
		t.Errorf("%d requests for the 40 links over two harvests, want one each", n)
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, "40 links were not followed: lately they led to nothing") {
		t.Errorf("warnings %q, want the links set aside counted", w)
	}
	t.Logf("first harvest %d bytes, next %d", first, next)
}

// TestCrawlOfDrippingPages: pages that send a byte now and then cost a
// harvest --page-timeout each, once, and watched pages that turn slow get
// less patience the next time.
func TestCrawlOfDrippingPages(t *testing.T) {
	var drip atomic.Bool
	links := []string{"/a.html", "/b.html", "/c.html", "/d.html", "/e.html"}
	site := newHostileSite(t, links, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if !strings.HasSuffix(r.URL.Path, ".html") {
			http.NotFound(w, r)
			return
		}
		if !drip.Load() {
			fmt.Fprintf(w, "<title>%s</title><p>The page %s.</p>", r.URL.Path, r.URL.Path)
			return
		}
		fl, _ := w.(http.Flusher)
		for r.Context().Err() == nil {
			w.Write([]byte(" "))
			fl.Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	})
	const limit = 400 * time.Millisecond
	store, h := harvesttest.New(t, harvest.Options{Snapshots: harvest.SnapshotSettings{PageTimeout: limit}})
	if _, err := h.Follow(context.Background(), site.URL+"/"); err != nil {
		t.Fatal(err)
	}
	drip.Store(true)
	harvest := func() (*harvest.SiteReport, time.Duration) {
		s, err := store.SiteByURL(context.Background(), site.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		rep, err := h.HarvestSite(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		return rep, time.Since(start)
	}
	rep, took := harvest()
	w := strings.Join(harvesttest.Warnings(rep), "\n")
	if !strings.Contains(w, "/a.html took longer than 400ms to send (--page-timeout)") || !strings.Contains(w, "with less patience") {
		t.Errorf("warnings %q, want the slow pages named", w)
	}
	rep, took2 := harvest()
	w = strings.Join(harvesttest.Warnings(rep), "\n")
	if !strings.Contains(w, "/a.html took longer than 133ms to send") {
		t.Errorf("warnings %q, want a third of the patience for pages slow before", w)
	}
	// A hang guard, not a speed target: a page read without its limit
	// would drip for ever.
	if took > 20*limit || took2 > 20*limit {
		t.Errorf("harvests took %s and %s with five pages of %s each at most", took, took2, limit)
	}
	t.Logf("harvests of five dripping pages: %s, then %s", took, took2)
}

// TestCrawlOfASoft404Site: a site answering every address with 200 and
// made-up text linking more made-up addresses gets its start page and
// the pages it links watched, not a crawl of its inventions.
func TestCrawlOfASoft404Site(t *testing.T) {
	var n atomic.Int64
	serve := func(w http.ResponseWriter, r *http.Request) {
		k := n.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<title>Shrine</title><p>Made-up text number %d.</p>", k)
		for i := range 5 {
			fmt.Fprintf(w, `<a href="/x%d-%d.html">more</a> `, k, i)
		}
	}
	site := newHostileSite(t, []string{"/a.html", "/b.html", "/c.html"}, serve)
	store, h := harvesttest.New(t, harvest.Options{})
	rep := harvesttest.Follow(t, h, site.URL+"/")
	for range 2 {
		rep = harvesttest.HarvestSite(t, store, h, site.URL+"/")
	}
	cols, err := store.Collections(context.Background(), db.CollectionFilter{SiteID: rep.Site.ID})
	if err != nil || len(cols) != 1 {
		t.Fatalf("collections %v, %v", cols, err)
	}
	list, err := store.WatchedPages(context.Background(), cols[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) > 10 {
		t.Errorf("%d pages watched of a site that makes them up; want its start page and its links", len(list))
	}
	t.Logf("%d pages watched", len(list))
}

// TestCrawlOfSessionLinks: a site that writes a new session id into every
// link, in each of the ways sites do, is watched as its 10 pages.
func TestCrawlOfSessionLinks(t *testing.T) {
	var n atomic.Int64
	site := newHostileSite(t, []string{"/p0.html"}, func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/p") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		page := r.URL.Path[strings.LastIndex(r.URL.Path, "/p")+2:]
		page = strings.TrimSuffix(page, ".html")
		fmt.Fprintf(w, "<title>Page %s</title><p>The text of page %s.</p>", page, page)
		for i := range 10 {
			k := n.Add(1)
			fmt.Fprintf(w, `<a href="/p%d.html;jsessionid=%032x">a</a> <a href="/p%d.html?PHPSESSID=%032x">b</a> <a href="/s/a1b2c3d4e5f6%010d/p%d.html">c</a> `, i, k, i, k, k, i)
		}
	})
	store, h := harvesttest.New(t, harvest.Options{})
	rep := harvesttest.Follow(t, h, site.URL+"/")
	rep = harvesttest.HarvestSite(t, store, h, site.URL+"/")
	cols, err := store.Collections(context.Background(), db.CollectionFilter{SiteID: rep.Site.ID})
	if err != nil || len(cols) != 1 {
		t.Fatalf("collections %v, %v", cols, err)
	}
	list, err := store.WatchedPages(context.Background(), cols[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) > 12 {
		var urls []string
		for _, p := range list {
			urls = append(urls, p.URL)
		}
		t.Errorf("%d pages watched of a site of 10 pages and its home page:\n%s", len(list), strings.Join(urls, "\n"))
	}
}

// TestCrawlOfAHomePageTitledWith404: a page that merely has 404 in its
// title is a page.
func TestCrawlOfAHomePageTitledWith404(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<title>Room 404 – Ann's shrine</title><p>Welcome to room 404.</p><a href="/b.html">b</a>`)
		case "/b.html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<title>B</title><p>Page b.</p>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	_, h := harvesttest.New(t, harvest.Options{})
	rep := harvesttest.Follow(t, h, site.URL+"/")
	if len(rep.Collections) != 1 || rep.Collections[0].Run.Error != "" {
		t.Fatalf("collections %+v", rep.Collections)
	}
}

// TestDiscoveryOfADrippingSite: a site whose every document sends a byte
// now and then, robots.txt first, costs a discovery one document's bound
// (--discovery-document-timeout), not the client's minute per document:
// the first too slow stops it, it asks the site for nothing more, and
// says why.
func TestDiscoveryOfADrippingSite(t *testing.T) {
	var hits atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fl, _ := w.(http.Flusher)
		for r.Context().Err() == nil {
			w.Write([]byte("<p>x"))
			fl.Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(site.Close)
	const limit = 500 * time.Millisecond
	_, h := harvesttest.New(t, harvest.Options{DiscoveryDocTimeout: limit})
	start := time.Now()
	_, err := h.Follow(context.Background(), site.URL+"/")
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "took longer than 500ms to send (--discovery-document-timeout)") {
		t.Errorf("follow: %v, want the slow document named", err)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the site got %d requests, want the one too slow alone", n)
	}
	// A hang guard, not a speed target: without the bound, each document
	// drips for the client's minute.
	if took > 20*limit {
		t.Errorf("the follow took %s with a bound of %s a document", took, limit)
	}
	t.Logf("follow of a dripping site: %s", took)
}
