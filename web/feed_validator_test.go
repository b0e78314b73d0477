package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"tidings/db"
)

// validatorPath finds validate-feed, the W3C Feed Validation Service's
// engine run offline, which lives outside the repository, beside the
// module in ../shared/tools; "" when it is not there.
func validatorPath(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "tools", "validate-feed")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

var nextLink = regexp.MustCompile(`href="([^"]+)" rel="next"`)

// TestFeedsValidate runs every kind of feed tidings serves through the
// W3C validator's engine: collection, site and personal feeds, digests and
// one entry per change, Atom and RSS, their older pages, and both OPML
// exports. It wants no error and no warning but DuplicateUpdated, and that
// only where the site gave several changes one datetime. JSON Feed, which
// the engine does not read, is held to JSON Feed 1.1's required members
// here.
//
// The engine is not part of this repository: the test looks for it at
// ../shared/tools/validate-feed beside the module and skips without it.
// It needs python3 with Debian's python3-html5lib, python3-rdflib and
// python3-libxml2.
func TestFeedsValidate(t *testing.T) {
	validator := validatorPath(t)
	if validator == "" {
		t.Skip("validate-feed not found at ../shared/tools beside the module: feed validation not run (it is the W3C feedvalidator's engine, github.com/w3c/feedvalidator, with a small command-line wrapper)")
	}
	// Run by a python that has what the engine needs, so that the wrapper
	// never installs it (with apt-get, over the network) from a test.
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import html5lib, rdflib, libxml2").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("validate-feed needs python3-html5lib, python3-rdflib and python3-libxml2 (apt-get install -y python3-html5lib python3-rdflib python3-libxml2): feed validation not run")
	}

	fx := newFixture(t, nil)
	sameTime := sameTimeCollection(t, fx.store, time.Now().UTC())
	diffs := diffCollection(t, fx.store, time.Now().UTC())
	for _, ago := range []time.Duration{3 * time.Hour, 2 * time.Hour} {
		at := time.Now().UTC().Add(-ago)
		if _, err := fx.store.SaveCollectionHarvest(t.Context(), db.CollectionHarvest{
			Run: db.Run{SiteID: diffs.SiteID, CollectionID: diffs.ID, StartedAt: at.Add(-time.Second), FinishedAt: at, Error: "the SCP file returned 500"},
		}); err != nil {
			t.Fatal(err)
		}
	}
	session := signIn(t, fx.store, "ann")

	// Served on loopback at its own base URL, so that every document's
	// rel="self" is the address the validator fetched it from.
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	s, err := New(fx.store, Options{BaseURL: srv.URL + "/", FeedEntries: 3, FailingAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	h = s.Handler()
	get := func(u, session string) []byte {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if session != "" {
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: session})
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
		}
		return body
	}

	feedsOf := []string{
		public(t, fx.store, "/feeds/1"), public(t, fx.store, "/sites/1"),
		"/feeds/" + sameTime.PublicID, "/feeds/" + diffs.PublicID,
		"/u/" + userToken(t, fx.store, session),
	}
	var docs []string // every feed document to validate, newest pages and older
	bodies := map[string][]byte{}
	for _, base := range feedsOf {
		for _, mode := range []string{"", "?entries=page"} {
			for _, ext := range []string{"atom", "rss"} {
				u := srv.URL + base + "." + ext + mode
				for pages := 0; u != "" && pages < 3; pages++ {
					body := get(u, "")
					docs, bodies[u] = append(docs, u), body
					u = ""
					if m := nextLink.FindSubmatch(body); m != nil {
						u = html.UnescapeString(string(m[1]))
					}
				}
			}
			checkJSONFeed(t, srv.URL+base+".json"+mode, get(srv.URL+base+".json"+mode, ""))
		}
	}
	dir := t.TempDir()
	var files []string
	for _, q := range []string{"", "?entries=page"} {
		name := filepath.Join(dir, "export"+map[string]string{"": "", "?entries=page": "-pages"}[q]+".opml")
		if err := os.WriteFile(name, get(srv.URL+"/opml"+q, session), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}

	cmd := exec.CommandContext(t.Context(), python, append(append([]string{validator, "--strict", "--base", srv.URL + "/opml"}, docs...), files...)...)
	out, _ := cmd.CombinedOutput()
	events := validatorEvents(string(out))
	if len(events) != len(docs)+len(files) {
		t.Fatalf("the validator reported on %d documents of %d:\n%s", len(events), len(docs)+len(files), out)
	}
	truthful := 0
	for src, lines := range events {
		for _, l := range lines {
			if strings.Contains(l, "Two entries with the same value for atom:updated") && siteGaveOneDatetime(t, bodies[src]) {
				truthful++
				continue
			}
			t.Errorf("%s: %s", src, l)
		}
	}
	if truthful == 0 {
		t.Error("no feed held the two changes the site gave one datetime: DuplicateUpdated was not tried")
	}
	if testing.Verbose() {
		t.Logf("validate-feed --strict:\n%s", out)
	}
}

// sameTimeCollection stores a site with one collection whose changes
// carry titles, summaries, authors, languages and tags, two of them given
// one datetime by the site, found by harvests that ended later, as
// harvests do; it returns the collection.
func sameTimeCollection(t *testing.T, store *db.DB, now time.Time) db.Collection {
	t.Helper()
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://same.example/", InputURL: "https://same.example/", Title: "Same Time"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "scp", Key: "https://same.example/art/", SourceURL: "https://same.example/art.scp.gz", Title: "Art & Cats"}})
	if err != nil {
		t.Fatal(err)
	}
	col := cols[0]
	day := now.Add(-3 * time.Hour).Truncate(time.Hour) // as sites date their changes
	runs := [][]db.Change{
		{{URL: "https://same.example/art/cats.html", Kind: "created", Datetime: day.Add(-48 * time.Hour), Title: "Cats", Summary: "Ten new cats.", Author: "Ann", Language: "en", Tags: []string{"cats", "art"}}},
		{
			{URL: "https://same.example/art/chats.html", Kind: "updated", Datetime: day, Title: "Les chats", Summary: "Des chats & des chiens.", Author: "Ann", Language: "fr", Tags: []string{"chats"},
				TextChange: db.TextChanged, Diff: diffJSON(t, "Les chats\nLes chats dorment au soleil.", "Les chats\nLes chats ronronnent au soleil.")},
			{URL: "https://same.example/art/dogs.html", Kind: "updated", Datetime: day, Title: "Dogs", Author: "Ann", Language: "en",
				TextChange: db.TextChanged, Diff: diffJSON(t, "Dogs\nRex sleeps.\nOld line.", "Dogs\nRex sleeps all day.\nA new line.")},
			{URL: "https://same.example/art/old.html", Kind: "deleted", Datetime: day.Add(-time.Hour), Author: "Ann"},
		},
	}
	for i, changes := range runs {
		finished := now.Add(time.Duration(i-len(runs)) * time.Hour / 2)
		if _, err := store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
			Run:     db.Run{SiteID: site.ID, CollectionID: col.ID, StartedAt: finished.Add(-time.Minute), FinishedAt: finished},
			Changes: changes,
		}); err != nil {
			t.Fatal(err)
		}
	}
	return col
}

// validatorEvents reads validate-feed's report: each document's errors
// and warnings, by the document's address.
func validatorEvents(out string) map[string][]string {
	events := map[string][]string{}
	src := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "== "):
			src, _, _ = strings.Cut(strings.TrimPrefix(line, "== "), " (feed type")
			events[src] = nil
		case strings.HasPrefix(line, "ERROR") || strings.HasPrefix(line, "WARN"):
			events[src] = append(events[src], line)
		}
	}
	return events
}

// siteGaveOneDatetime tells whether every pair of entries of an Atom
// document that share their <updated> are changes: these carry the
// datetime the site gave them (or, for pages it gives none, the moment of
// the harvest that noticed them), and DuplicateUpdated then tells the
// truth. Entries tidings dates itself never share one.
func siteGaveOneDatetime(t *testing.T, doc []byte) bool {
	t.Helper()
	var feed struct {
		Entries []struct {
			ID      string `xml:"id"`
			Updated string `xml:"updated"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(doc, &feed); err != nil {
		t.Fatal(err)
	}
	by := map[string][]string{}
	for _, e := range feed.Entries {
		by[e.Updated] = append(by[e.Updated], e.ID)
	}
	shared := false
	for _, ids := range by {
		if len(ids) < 2 {
			continue
		}
		shared = true
		for _, id := range ids {
			if !strings.Contains(id, "/change/") {
				return false
			}
		}
	}
	return shared
}

// checkJSONFeed holds a JSON Feed document to what JSON Feed 1.1
// requires: version, title and items; each item an id, unique, and
// content_html or content_text; dates in RFC 3339; feed_url its address.
func checkJSONFeed(t *testing.T, u string, body []byte) {
	t.Helper()
	var doc struct {
		Version string `json:"version"`
		Title   string `json:"title"`
		FeedURL string `json:"feed_url"`
		Items   []struct {
			ID            string `json:"id"`
			ContentHTML   string `json:"content_html"`
			ContentText   string `json:"content_text"`
			DatePublished string `json:"date_published"`
			DateModified  string `json:"date_modified"`
		} `json:"items"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	if doc.Version != "https://jsonfeed.org/version/1.1" || doc.Title == "" || doc.Items == nil || doc.FeedURL != u {
		t.Errorf("%s: version %q, title %q, feed_url %q, items %v", u, doc.Version, doc.Title, doc.FeedURL, doc.Items != nil)
	}
	ids := map[string]bool{}
	for _, it := range doc.Items {
		if it.ID == "" || ids[it.ID] || (it.ContentHTML == "" && it.ContentText == "") {
			t.Errorf("%s: item %q: repeated, or without content", u, it.ID)
		}
		ids[it.ID] = true
		for _, d := range []string{it.DatePublished, it.DateModified} {
			if _, err := time.Parse(time.RFC3339, d); err != nil {
				t.Errorf("%s: item %q: date %q", u, it.ID, d)
			}
		}
	}
}
