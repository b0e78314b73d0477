package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/pagetext"
)

// bigChanges stores a collection of 50 changes, each a page of 600 lines
// of which every third is rewritten, some of them naming what HTML
// escapes, dated a minute apart; it returns the collection and the lines
// each change added, by its page's URL.
func bigChanges(t *testing.T, store *db.DB, now time.Time) (db.Collection, map[string][]string) {
	t.Helper()
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://big.example/", InputURL: "https://big.example/", Title: "Big Pages"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "scp", Key: "https://big.example/", SourceURL: "https://big.example/site.scp.gz", Title: "Big"}})
	if err != nil {
		t.Fatal(err)
	}
	added := map[string][]string{}
	var changes []db.Change
	for k := range 50 {
		u := fmt.Sprintf("https://big.example/p%d.html", k)
		var a, b []string
		for i := range 600 {
			line := fmt.Sprintf("Line %d of page %d, <b> & \"quoted\", as it was, with words enough to make a line of prose.", i, k)
			a = append(a, line)
			if i%3 == 0 {
				line = fmt.Sprintf("Line %d of page %d rewritten: new words & <i>new</i> marks, the page changed here.", i, k)
				added[u] = append(added[u], line)
			}
			b = append(b, line)
		}
		diff, err := json.Marshal(pagetext.Compare(strings.Join(a, "\n"), strings.Join(b, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, db.Change{URL: u, Kind: "updated", Datetime: now.Add(-time.Duration(k+1) * time.Minute),
			Title: fmt.Sprintf("Page %d", k), TextChange: db.TextChanged, Diff: string(diff)})
	}
	at := now.Add(-time.Minute / 2)
	if _, err := store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
		Run:     db.Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: at.Add(-time.Second), FinishedAt: at},
		Changes: changes,
	}); err != nil {
		t.Fatal(err)
	}
	return cols[0], added
}

// TestBigChangesFeedAndPages: a feed of fifty big changes stays under
// what readers take, each entry saying what changed and linking to its
// change's page, which shows every line; the feed validates. The page of
// a change is found only under its own collection.
func TestBigChangesFeedAndPages(t *testing.T) {
	fx := newFixture(t, nil)
	col, added := bigChanges(t, fx.store, time.Now().UTC().Truncate(time.Second))
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	s, err := New(fx.store, Options{BaseURL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	h = s.Handler()
	get := func(u string) (int, []byte) {
		t.Helper()
		resp, err := srv.Client().Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}

	feedURL := srv.URL + "/feeds/" + col.PublicID + ".atom?entries=page"
	code, body := get(feedURL)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d", feedURL, code)
	}
	t.Logf("a feed of 50 changes of %d lines each: %d bytes", 2*len(added["https://big.example/p0.html"]), len(body))
	if len(body) > 500_000 {
		t.Errorf("the feed is %d bytes, over 500 kB", len(body))
	}
	f, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	shown := 0
	for _, it := range f.Items {
		lines := added[it.Link]
		if lines == nil {
			continue // the collection's "now following" entry
		}
		if strings.Contains(it.Content, html.EscapeString(lines[0])) {
			shown++
		} else if strings.Count(it.Content, "(and 198 more lines)") != 2 {
			t.Errorf("%s: the entry says neither its first line nor how many changed: %.300q", it.Title, it.Content)
		}
		start := strings.Index(it.Content, `<a href="`+srv.URL+"/collection/"+col.PublicID+"/change/")
		if start < 0 {
			t.Fatalf("%s: no link to the change's page: …%s", it.Title, it.Content[max(0, len(it.Content)-300):])
		}
		link, _, _ := strings.Cut(it.Content[start+len(`<a href="`):], `"`)
		pages = append(pages, link)
		code, page := get(link)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d", link, code)
		}
		for _, l := range lines {
			if !bytes.Contains(page, []byte(html.EscapeString(l))) {
				t.Fatalf("%s: the change's page leaves out %q", link, l)
			}
		}
	}
	if len(pages) != 49 || shown == 0 {
		t.Errorf("%d entries link to their change's page, %d show lines; want 49 (a page of 50 entries, one of them the collection's first), some", len(pages), shown)
	}

	// The collection's and the site's pages show 40 lines of each change
	// of their first page of changes (15 and 10) and link to the rest.
	site, err := fx.store.SiteByID(t.Context(), col.SiteID)
	if err != nil {
		t.Fatal(err)
	}
	for u, want := range map[string]int{srv.URL + "/collection/" + col.PublicID: collectionChanges, srv.URL + "/" + sitePath(site): siteChanges} {
		code, page := get(u)
		if n := bytes.Count(page, []byte(`<a href="`+srv.URL+"/collection/"+col.PublicID+"/change/")); code != http.StatusOK || n != want {
			t.Errorf("GET %s: %d, %d links to a change's page, want %d", u, code, n, want)
		}
	}

	// Another collection's address, a change that is not there.
	other := diffCollection(t, fx.store, time.Now().UTC())
	id := pages[0][strings.LastIndex(pages[0], "/")+1:]
	for _, u := range []string{
		srv.URL + "/collection/" + other.PublicID + "/change/" + id,
		srv.URL + "/collection/" + col.PublicID + "/change/999999",
		srv.URL + "/collection/" + col.PublicID + "/change/x",
	} {
		if code, _ := get(u); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", u, code)
		}
	}
	if feedbuild.ChangePage(col, 7) != "collection/"+col.PublicID+"/change/7" {
		t.Errorf("ChangePage = %q", feedbuild.ChangePage(col, 7))
	}

	validator := validatorPath(t)
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import html5lib, rdflib, libxml2").Run() == nil {
			python = p
			break
		}
	}
	if validator == "" || python == "" {
		t.Log("validate-feed or its python modules not found: the feed was not validated")
		return
	}
	docs := []string{feedURL, srv.URL + "/feeds/" + col.PublicID + ".rss?entries=page"}
	out, _ := exec.CommandContext(t.Context(), python, append([]string{validator, "--strict"}, docs...)...).CombinedOutput()
	events := validatorEvents(string(out))
	if len(events) != len(docs) {
		t.Fatalf("the validator reported on %d documents of %d:\n%s", len(events), len(docs), out)
	}
	for src, lines := range events {
		for _, l := range lines {
			t.Errorf("%s: %s", src, l)
		}
	}
}
