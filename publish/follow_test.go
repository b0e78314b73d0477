package publish_test

import (
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/harvest/resourcesync"
	"tidings/publish"
)

// follower is a tidings following a published folder served on loopback,
// its clock set by the test.
type follower struct {
	t     *testing.T
	dir   string
	url   string
	now   time.Time
	store *db.DB
	h     *harvest.Harvester
	site  db.Site
}

func newFollower(t *testing.T, dir string, handler func(http.Handler) http.Handler) *follower {
	t.Helper()
	fs := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The tests publish several times a second, finer than the
		// Last-Modified a file server sends: every read is a full one.
		r.Header.Del("If-Modified-Since")
		fs.ServeHTTP(w, r)
	})))
	t.Cleanup(srv.Close)
	store, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	f := &follower{t: t, dir: dir, url: srv.URL + "/", store: store}
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	opts := harvest.Options{Now: func() time.Time { return f.now }}
	// The pages are served, but what is tested is the change lists.
	opts.Snapshots.Off = true
	f.h = harvest.New(client, store, opts)
	return f
}

// publish publishes the folder at now, dating changes by now.
func (f *follower) publish(now string, o publish.Options) *publish.Result {
	f.t.Helper()
	f.now = mustTime(f.t, now)
	o.Dir, o.BaseURL, o.Datetime, o.Now = f.dir, f.url, publish.DatetimeNow, func() time.Time { return f.now }
	res, err := publish.Publish(context.Background(), o)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

// harvest follows the site the first time, harvests it after, an hour
// after the last publish, and returns the changes that harvest stored.
func (f *follower) harvest() []change {
	f.t.Helper()
	f.now = f.now.Add(time.Hour)
	before := map[change]bool{}
	for _, c := range f.stored() {
		before[c] = true
	}
	var rep *harvest.SiteReport
	var err error
	if f.site.ID == 0 {
		rep, err = f.h.Follow(context.Background(), f.url)
		if err == nil {
			f.site = rep.Site
		}
	} else {
		rep, err = f.h.HarvestSite(context.Background(), f.site)
	}
	if err != nil {
		f.t.Fatalf("harvest: %v", err)
	}
	if rep.Run.Error != "" || rep.Warnings() > 0 {
		f.t.Fatalf("harvest: problem %q, %d warnings: %+v", rep.Run.Error, rep.Warnings(), rep)
	}
	var got []change
	for _, c := range f.stored() {
		if !before[c] {
			got = append(got, c)
		}
	}
	if rep.Changes() != len(got) {
		f.t.Fatalf("the harvest reports %d changes and stored %d", rep.Changes(), len(got))
	}
	return got
}

// stored is every change in the database, oldest first.
func (f *follower) stored() []change {
	f.t.Helper()
	var out []change
	err := f.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		out = append(out, change{c.URL, c.Kind, c.Datetime.UTC().Format(time.RFC3339)})
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func sortChanges(cs []change) []change {
	slices.SortFunc(cs, func(a, b change) int {
		return cmp.Or(strings.Compare(a.at, b.at), strings.Compare(a.url, b.url), strings.Compare(a.kind, b.kind))
	})
	return cs
}

func TestTidingsFollowsAPublishedSite(t *testing.T) {
	dir := fixtureSite(t)
	f := newFollower(t, dir, func(h http.Handler) http.Handler { return h })
	f.publish("2026-11-02T10:00:00Z", publish.Options{})
	if got := f.harvest(); len(got) != 0 {
		t.Fatalf("the first harvest found %v", got)
	}
	cols, err := f.store.Collections(context.Background(), db.CollectionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 1 || cols[0].Key != f.url || cols[0].Title != "Ann's site" || cols[0].Protocol != resourcesync.Name {
		t.Fatalf("collections: %+v", cols)
	}

	writeSite(t, dir, map[string]string{
		"about.html":           "about me, again",
		"shrine/gallery.htm":   "more pictures",
		"shrine/new page.html": "a new page",
	})
	if err := os.Remove(filepath.Join(dir, "shrine/old.html")); err != nil {
		t.Fatal(err)
	}
	f.publish("2026-11-03T08:30:00Z", publish.Options{})
	const t2 = "2026-11-03T08:30:00Z"
	want := []change{
		{f.url + "about.html", "updated", t2},
		{f.url + "shrine/gallery.htm", "updated", t2},
		{f.url + "shrine/new%20page.html", "created", t2},
		{f.url + "shrine/old.html", "deleted", t2},
	}
	if got := sortChanges(f.harvest()); !reflect.DeepEqual(got, want) {
		t.Fatalf("the harvest after the changes found:\n got %v\nwant %v", got, want)
	}
	if got := sortChanges(f.stored()); !reflect.DeepEqual(got, want) {
		t.Fatalf("stored:\n got %v\nwant %v", got, want)
	}

	// Nothing changed: nothing is written, nothing found.
	if res := f.publish("2026-11-04T08:00:00Z", publish.Options{}); len(res.Written) != 0 {
		t.Fatalf("wrote %q", res.Written)
	}
	if got := f.harvest(); len(got) != 0 {
		t.Fatalf("found %v", got)
	}

	// A month later, with lists of two entries: the change list is
	// archived, and tidings reads the index.
	small := publish.Options{MaxListEntries: 2}
	writeSite(t, dir, map[string]string{"index.html": "<title>Ann's site</title>december", "d1.html": "1", "d2.html": "2"})
	res := f.publish("2026-12-01T09:00:00Z", small)
	if res.Collections[0].Archived != 2 {
		t.Fatalf("archived %d lists", res.Collections[0].Archived)
	}
	const t3 = "2026-12-01T09:00:00Z"
	wantDec := []change{{f.url, "updated", t3}, {f.url + "d1.html", "created", t3}, {f.url + "d2.html", "created", t3}}
	if got := sortChanges(f.harvest()); !reflect.DeepEqual(got, wantDec) {
		t.Fatalf("after the rotation:\n got %v\nwant %v", got, wantDec)
	}
	if got := f.stored(); len(got) != len(want)+len(wantDec) {
		t.Fatalf("stored %d changes, want %d: %v", len(got), len(want)+len(wantDec), got)
	}
}

// A host that will not serve /.well-known/ still has the site followed
// through the robots.txt Sitemap line the README gives.
func TestTidingsFollowsThroughRobotsTxt(t *testing.T) {
	dir := fixtureSite(t)
	f := newFollower(t, dir, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/.well-known/") {
				http.NotFound(w, r)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	f.publish("2026-11-02T10:00:00Z", publish.Options{Collections: []string{"shrine"}})
	writeSite(t, dir, map[string]string{"robots.txt": "Sitemap: " + f.url + "resourcesync/shrine/capabilitylist.xml\n"})
	f.harvest()
	writeSite(t, dir, map[string]string{"shrine/gallery.htm": "more pictures"})
	f.publish("2026-11-03T08:30:00Z", publish.Options{Collections: []string{"shrine"}})
	want := []change{{f.url + "shrine/gallery.htm", "updated", "2026-11-03T08:30:00Z"}}
	if got := f.harvest(); !reflect.DeepEqual(got, want) {
		t.Fatalf("found:\n got %v\nwant %v", got, want)
	}
}

// TestTidingsKeepsTheAuthorsNotes: the notes a published change list
// carries become the summaries of the changes tidings stores, which its
// per-page entries show.
func TestTidingsKeepsTheAuthorsNotes(t *testing.T) {
	dir := fixtureSite(t)
	f := newFollower(t, dir, func(h http.Handler) http.Handler { return h })
	f.publish("2026-11-02T10:00:00Z", publish.Options{})
	f.harvest()
	writeSite(t, dir, map[string]string{
		"about.html":         `<html><head><meta name="change-note" content="Moved to the seaside"></head><body>about me, again</body></html>`,
		"shrine/gallery.htm": "more pictures",
	})
	f.publish("2026-11-03T08:30:00Z", publish.Options{Note: "Autumn update"})
	if got := f.harvest(); len(got) != 2 {
		t.Fatalf("harvest found %v", got)
	}
	notes := map[string]string{}
	err := f.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		notes[c.URL] = c.Summary
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{f.url + "about.html": "Moved to the seaside", f.url + "shrine/gallery.htm": "Autumn update"}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("stored summaries %q, want %q", notes, want)
	}
}
