package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestPublishFeedNotesAndPings: the command prints each collection's
// change feed and the line that links it, inserts it with --link-feed,
// takes --note, and reports what the loopback IndexNow endpoint and hub
// answered; an endpoint that fails is reported and the run succeeds.
func TestPublishFeedNotesAndPings(t *testing.T) {
	var mu sync.Mutex
	var submitted []string
	indexNow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		submitted = append(submitted, string(b))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer indexNow.Close()
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer hub.Close()

	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, map[string]string{"index.html": "<html><head><title>Ann</title></head><body><p>home</p></body></html>", "a.html": "<p>a</p>"})
	args := []string{"publish", dir, "--base-url", "https://ann.example.org/", "--datetime", "now", "--link-feed",
		"--indexnow-key", "annskey-0001", "--indexnow-endpoint", indexNow.URL, "--websub-hub", hub.URL, "--allow-private-addresses"}
	r := tidings(t, nil, args...)
	mustSucceed(t, r)
	link := `<link rel="alternate" type="application/atom+xml" title="Changes to Ann" href="https://ann.example.org/resourcesync/changes.atom">`
	for _, want := range []string{"  change feed: https://ann.example.org/resourcesync/changes.atom\n", "  linked from its index.html: " + link + "\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("first run lacks %q:\n%s", want, r.stdout)
		}
	}
	if home, _ := os.ReadFile(filepath.Join(dir, "index.html")); !strings.Contains(string(home), link+"\n</head>") {
		t.Errorf("index.html:\n%s", home)
	}
	if len(submitted) != 0 || strings.Contains(r.stdout, "IndexNow") {
		t.Errorf("a first run pinged: %q\n%s", submitted, r.stdout)
	}

	writeFiles(t, dir, map[string]string{"a.html": "<p>a, edited</p>"})
	r = tidings(t, nil, append(args, "--note", "Fixed a typo")...)
	mustSucceed(t, r)
	for _, want := range []string{
		"  linked from its index.html: " + link, // already there
		"IndexNow: 1 changed URL(s) sent to " + indexNow.URL + ", taken (200)",
		"WebSub: 3 topic(s) sent to " + hub.URL + ", not taken: ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("second run lacks %q:\n%s", want, r.stdout)
		}
	}
	var sub struct{ URLList []string }
	if len(submitted) != 1 || json.Unmarshal([]byte(submitted[0]), &sub) != nil || len(sub.URLList) != 1 || sub.URLList[0] != "https://ann.example.org/a.html" {
		t.Errorf("IndexNow got %q", submitted)
	}
	feed, _ := os.ReadFile(filepath.Join(dir, "resourcesync", "changes.atom"))
	cl, _ := os.ReadFile(filepath.Join(dir, "resourcesync", "changelist.xml"))
	if !strings.Contains(string(feed), "Fixed a typo") || !strings.Contains(string(cl), `tidings:note="Fixed a typo"`) {
		t.Errorf("the note is not in the feed or the change list:\n%s\n%s", feed, cl)
	}
}
