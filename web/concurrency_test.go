package web

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fixturesite"
)

// syncLog collects the log lines of the server and the harvester.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// changeRound replaces a fixture site's change lists with entries dated
// after every earlier round's, so that each harvest of it commits changes.
func changeRound(site *fixturesite.Site, start time.Time, round int) {
	at := start.Add(time.Duration(round) * time.Second).Format(time.RFC3339)
	list := func(dir string) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="changelist" from="` + start.Format(time.RFC3339) + `"/>
`)
		for i := range 5 {
			fmt.Fprintf(&b, "  <url><loc>{{.Base}}/%s/round-%d-%d.html</loc><rs:md change=\"updated\" datetime=%q/></url>\n", dir, round, i, at)
		}
		b.WriteString("</urlset>\n")
		return b.String()
	}
	site.Set("/shrine/changes-current.xml", list("shrine"))
	site.Set("/gallery/changes.xml", list("gallery"))
}

// checkAtom reports whether body is a well-formed Atom feed.
func checkAtom(body []byte) error {
	d := xml.NewDecoder(bytes.NewReader(body))
	root := true
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if root {
				return errors.New("no root element")
			}
			return nil
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && root {
			root = false
			if se.Name.Space != "http://www.w3.org/2005/Atom" || se.Name.Local != "feed" {
				return fmt.Errorf("root element is {%s}%s, not an Atom feed", se.Name.Space, se.Name.Local)
			}
		}
	}
}

// TestFeedsServeWhileHarvestsWrite fires 1,000 feed requests, 64 at a time,
// at a real loopback server while harvests of changing fixture sites commit
// into the same database: every request must answer 200 with Atom, and
// "database is locked" must appear nowhere.
func TestFeedsServeWhileHarvestsWrite(t *testing.T) {
	const (
		nSites   = 4
		requests = 1000
		workers  = 64
	)
	var logs syncLog
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-test"})
	h := harvest.New(client, store, harvest.Options{Logger: logger})

	now := time.Now().UTC().Truncate(time.Second)
	start := now.Add(-time.Hour)
	var sites []*fixturesite.Site
	var stored []db.Site
	for range nSites {
		site := fixturesite.New(now)
		t.Cleanup(site.Close)
		rep, err := h.Follow(t.Context(), site.URL)
		if err != nil {
			t.Fatalf("follow %s: %v", site.URL, err)
		}
		sites = append(sites, site)
		stored = append(stored, rep.Site)
	}
	var paths []string
	cols, err := store.Collections(t.Context(), db.CollectionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cols {
		paths = append(paths, "/"+feedbuild.CollectionFeedPath(c), "/"+feedbuild.CollectionFeedPath(c)+"?entries=page")
	}
	for _, s := range stored {
		paths = append(paths, "/"+feedbuild.SiteFeedPath(s), "/"+feedbuild.SiteFeedPath(s)+"?entries=page")
	}

	srv, err := New(store, Options{BaseURL: "http://tidings.test/", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	// One harvest loop per site runs from before the first request until
	// after the last: harvesting counts the harvests running, commits the
	// collection harvests that stored new changes.
	var harvesting, commits atomic.Int64
	var errMu sync.Mutex
	var harvestErrs []string
	stop := make(chan struct{})
	firstCommit := make(chan struct{})
	var once sync.Once
	var loops sync.WaitGroup
	for i, site := range sites {
		loops.Go(func() {
			for round := 1; ; round++ {
				select {
				case <-stop:
					return
				default:
				}
				changeRound(site, start, round)
				harvesting.Add(1)
				rep, err := h.HarvestSite(t.Context(), stored[i])
				harvesting.Add(-1)
				errMu.Lock()
				if err != nil {
					harvestErrs = append(harvestErrs, err.Error())
				}
				if rep == nil {
					errMu.Unlock()
					continue
				}
				for _, c := range rep.Collections {
					if c.Run.Error != "" {
						harvestErrs = append(harvestErrs, c.Run.Error)
					}
				}
				errMu.Unlock()
				for _, c := range rep.Collections {
					if c.Run.Changes > 0 {
						commits.Add(1)
						once.Do(func() { close(firstCommit) })
					}
				}
			}
		})
	}
	select {
	case <-firstCommit:
	case <-time.After(30 * time.Second):
		t.Fatal("no harvest committed changes within 30 s")
	}

	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	t.Cleanup(hc.CloseIdleConnections)
	commitsBefore := commits.Load()
	var served, during atomic.Int64
	var failMu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		failMu.Lock()
		defer failMu.Unlock()
		failures = append(failures, fmt.Sprintf(format, args...))
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	began := time.Now()
	for range workers {
		wg.Go(func() {
			for n := range jobs {
				path := paths[n%len(paths)]
				c0, busy := commits.Load(), harvesting.Load() > 0
				resp, err := hc.Get(ts.URL + path)
				if err != nil {
					fail("GET %s: %v", path, err)
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					fail("GET %s: reading the body: %v", path, err)
					continue
				}
				if busy || harvesting.Load() > 0 || commits.Load() != c0 {
					during.Add(1)
				}
				served.Add(1)
				switch {
				case resp.StatusCode != http.StatusOK:
					fail("GET %s: %s\n%s", path, resp.Status, body)
				case bytes.Contains(body, []byte("database is locked")):
					fail("GET %s: the body says the database is locked:\n%s", path, body)
				case !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/atom+xml"):
					fail("GET %s: Content-Type %q", path, resp.Header.Get("Content-Type"))
				default:
					if err := checkAtom(body); err != nil {
						fail("GET %s: %v\n%s", path, err, body)
					}
				}
			}
		})
	}
	for n := range requests {
		jobs <- n
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(began)
	commitsDuring := commits.Load() - commitsBefore
	close(stop)
	loops.Wait()

	if len(failures) > 0 {
		t.Errorf("%d of %d requests failed; the first:\n%s", len(failures), requests, strings.Join(failures[:min(5, len(failures))], "\n"))
	}
	if n := served.Load(); n != requests {
		t.Errorf("%d requests answered, want %d", n, requests)
	}
	if len(harvestErrs) > 0 {
		t.Errorf("%d harvests failed; the first: %s", len(harvestErrs), harvestErrs[0])
	}
	if commitsDuring == 0 {
		t.Errorf("no harvest committed while the requests ran: the test proved nothing")
	}
	for _, bad := range []string{"database is locked", "level=ERROR"} {
		if strings.Contains(logs.String(), bad) {
			t.Errorf("the log has %q:\n%s", bad, logs.String())
		}
	}
	t.Logf("%d feed requests (%d at a time) in %v, %d of them while a harvest ran; %d collection harvests committed changes meanwhile",
		served.Load(), workers, elapsed.Round(time.Millisecond), during.Load(), commitsDuring)
}
