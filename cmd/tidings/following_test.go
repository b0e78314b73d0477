package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
)

// serveInProcess runs serve on a free loopback port until the test ends
// and returns its base URL.
func serveInProcess(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	base, _ := serveLogged(t, env, args...)
	return base
}

// serveLogged is serveInProcess, also returning what serve logs.
func serveLogged(t *testing.T, env map[string]string, args ...string) (string, *syncBuffer) {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stdout syncBuffer
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", addr}, args...), func(k string) string { return env[k] }, strings.NewReader(""), &stdout, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v\n%s", err, stderr.String())
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop")
		}
	})
	waitHealthy(t, "http://"+addr+"/healthz")
	return "http://" + addr + "/", stderr
}

// shrineCollection returns the id of the fixture site's shrine collection
// and the change count `feeds --json` shows for it.
func shrineCollection(t *testing.T, env map[string]string) (id int64, changes int) {
	t.Helper()
	r := tidings(t, env, "feeds", "--json")
	mustSucceed(t, r)
	for _, l := range lines(t, r.stdout) {
		var fi feedInfo
		if err := json.Unmarshal([]byte(l), &fi); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(fi.Key, "/shrine/") {
			return fi.ID, fi.Changes
		}
	}
	t.Fatalf("no shrine collection in:\n%s", r.stdout)
	return 0, 0
}

// livePages counts the pages of a collection the export knows: URLs whose
// latest change did not delete them.
func livePages(t *testing.T, env map[string]string, collection int64) int {
	t.Helper()
	latest := map[string]change{}
	for _, c := range exportChanges(t, env, "--collection", fmt.Sprint(collection)) {
		if old, ok := latest[c.URL]; !ok || c.Datetime >= old.Datetime {
			latest[c.URL] = c
		}
	}
	n := 0
	for _, c := range latest {
		if c.Change != "deleted" {
			n++
		}
	}
	return n
}

// TestFirstFollowOfAQuietSiteHasOneEntry: a site whose changes are all
// older than --initial-window gets, in every format and entry mode, one
// entry naming it and its pages and listing its latest changes; the
// counts `feeds` shows match the feed; a later change adds one entry, and
// the first keeps its id.
func TestFirstFollowOfAQuietSiteHasOneEntry(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t, "TIDINGS_INITIAL_WINDOW", "2h")
	r := tidings(t, env, "follow", site.URL)
	mustSucceed(t, r)
	id, changes := shrineCollection(t, env)
	if changes != 0 {
		t.Errorf("feeds shows %d changes for a collection whose feed holds none", changes)
	}
	pages := livePages(t, env, id)
	if pages < 3 {
		t.Fatalf("the fixture's shrine has %d pages; the test needs several", pages)
	}
	if want := fmt.Sprintf("now followed: its feed's first entry names its %d page(s)", pages); !strings.Contains(r.stdout, want) {
		t.Errorf("follow does not say %q:\n%s", want, r.stdout)
	}
	base := serveInProcess(t, env, "--no-scheduler")
	wantTitle := fmt.Sprintf("Now following My Shrine & Co: %d pages", pages)

	read := func(ext, query string) *gofeed.Feed {
		t.Helper()
		f, err := gofeed.NewParser().ParseString(fetchBody(t, base+public(t, env["TIDINGS_DB"], fmt.Sprintf("feeds/%d.%s%s", id, ext, query))))
		if err != nil {
			t.Fatalf("%s%s: %v", ext, query, err)
		}
		return f
	}
	firstIDs := map[string]string{}
	for _, ext := range []string{"atom", "rss", "json"} {
		for _, query := range []string{"", "?entries=page"} {
			f := read(ext, query)
			if len(f.Items) != 1 {
				t.Fatalf("%s%s: %d entries, want 1", ext, query, len(f.Items))
			}
			it := f.Items[0]
			body := it.Content + it.Description
			if it.Title != wantTitle || !strings.Contains(body, "The most recent changes:") ||
				!strings.Contains(body, site.URL+"/shrine/gallery.html") {
				t.Errorf("%s%s: entry %q:\n%s", ext, query, it.Title, body)
			}
			if again := read(ext, query); again.Items[0].GUID != it.GUID {
				t.Errorf("%s%s: id %q, then %q", ext, query, it.GUID, again.Items[0].GUID)
			}
			firstIDs[ext] = it.GUID
			mode := "changes"
			if query != "" {
				mode = "every page"
			}
			if want := "My Shrine & Co — " + mode; f.Title != want {
				t.Errorf("%s%s: feed title %q, want %q", ext, query, f.Title, want)
			}
		}
	}

	addChange(t, site, "new.html", "1m")
	mustSucceed(t, tidings(t, env, "harvest", "--all"))
	if _, changes := shrineCollection(t, env); changes != 1 {
		t.Errorf("feeds shows %d changes after one new change", changes)
	}
	for _, ext := range []string{"atom", "rss", "json"} {
		for _, query := range []string{"", "?entries=page"} {
			var f *gofeed.Feed
			// serve notices another process's write within a tenth of a second.
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				if f = read(ext, query); len(f.Items) == 2 || time.Now().After(deadline) {
					break
				}
			}
			if len(f.Items) != 2 {
				t.Fatalf("%s%s: %d entries after a new change, want 2", ext, query, len(f.Items))
			}
			// A page entry is dated by the change, which the site dates
			// before the first harvest's entry.
			newest, first := f.Items[0], f.Items[1]
			want := "/shrine/new.html created on My Shrine & Co"
			if query != "" {
				newest, first = first, newest
				want = "Created: " + site.URL + "/shrine/new.html"
			}
			if newest.Title != want || first.GUID != firstIDs[ext] || first.Title != wantTitle {
				t.Errorf("%s%s: entries %q (%s), %q (%s)", ext, query, f.Items[0].Title, f.Items[0].GUID, f.Items[1].Title, f.Items[1].GUID)
			}
		}
	}
}
