package feedbuild

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feeds"
	"tidings/internal/pgtest"
)

const testBase = "http://tidings.test/"

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// testStore is a real database with one site of two collections.
type testStore struct {
	store *db.DB
	site  db.Site
	art   db.Collection // SCP: its home is the site
	blog  db.Collection
	runs  int // runs saved, to start each at its own time
}

func newTestStore(t *testing.T) *testStore {
	t.Helper()
	store, err := db.Open(t.Context(), pgtest.Target(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	site, err := store.CreateSite(t.Context(), db.Site{URL: "https://rich.example/", InputURL: "https://rich.example/"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(t.Context(), site.ID, []db.CollectionSpec{
		{Protocol: "scp", Key: "https://rich.example/art/", SourceURL: "https://rich.example/art.scp", Title: "Art"},
		{Protocol: "scp", Key: "https://rich.example/blog/", SourceURL: "https://rich.example/blog.scp", Title: "Blog"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &testStore{store: store, site: site, art: cols[0], blog: cols[1]}
}

// save stores one harvest run of col, finished at at, and reports it as
// the harvester would.
func (s *testStore) save(t *testing.T, col db.Collection, at time.Time, errMsg string, changes ...db.Change) Harvested {
	t.Helper()
	s.runs++
	run, err := s.store.SaveCollectionHarvest(t.Context(), db.CollectionHarvest{
		// Runs of one collection never overlap, so none start together;
		// several may end at one time here, to test ties.
		Run:     db.Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at.Add(-time.Duration(s.runs) * time.Millisecond), FinishedAt: at, Error: errMsg},
		Changes: changes,
	})
	if err != nil {
		t.Fatal(err)
	}
	return Harvested{Collection: col, Run: run}
}

func (s *testStore) builder(t *testing.T, o Options) *Builder {
	t.Helper()
	o.BaseURL = testBase
	b, err := New(s.store, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// build returns one document of spec.
func build(t *testing.T, b *Builder, spec *Spec, format feeds.Format, pg Page) *feeds.Feed {
	t.Helper()
	stamp, err := b.store.Stamp(t.Context(), spec.Scope)
	if err != nil {
		t.Fatal(err)
	}
	f, err := b.Build(t.Context(), spec, format, pg, stamp)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestURLScheme(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{CollectionFeedPath(db.Collection{ID: 12, PublicID: "0123456789abcdef0123456789abcdef"}), "feeds/0123456789abcdef0123456789abcdef.atom"},
		{SiteFeedPath(db.Site{ID: 3, PublicID: "fedcba9876543210fedcba9876543210"}), "sites/fedcba9876543210fedcba9876543210.atom"},
		{UserFeedPath("tok"), "u/tok.atom"},
		{InFormat(testBase+"feeds/12.atom", feeds.RSS), testBase + "feeds/12.rss"},
		{InFormat("sites/3.atom", feeds.JSON), "sites/3.json"},
		{CollectionHome(db.Collection{Protocol: "resourcesync", Key: "https://a.example/docs/", SiteURL: "https://a.example/"}), "https://a.example/docs/"},
		{CollectionHome(db.Collection{Protocol: "arc", Key: "https://a.example/arc.json", SiteURL: "https://a.example/"}), "https://a.example/"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	c := Cursor{at: t0.Add(1500 * time.Millisecond), src: srcStatus, id: 7}
	got, ok := ParseCursor(c.String())
	if !ok || got != c {
		t.Errorf("ParseCursor(%q) = %+v, %v; want %+v", c.String(), got, ok, c)
	}
	// Each page has one URL: only the form String writes is read.
	for _, s := range []string{"", "1.0", "1.0.1.2", "x.0.1", "1.4.1", "1.0.-1", "01.0.1", "+1.0.1", "1.0.1 "} {
		if _, ok := ParseCursor(s); ok {
			t.Errorf("ParseCursor(%q) accepted it", s)
		}
	}
}

// TestBuildPages follows the next links of a site feed of 25 harvests and
// a failing streak, 10 entries a page: every entry is on exactly one page,
// newest first, and the links name the pages.
func TestBuildPages(t *testing.T) {
	s := newTestStore(t)
	for i := range 25 {
		at := t0.Add(time.Duration(i/2) * time.Hour) // ties across page boundaries
		s.save(t, s.art, at, "", db.Change{URL: fmt.Sprintf("https://rich.example/art/%02d.html", i), Kind: "updated", Datetime: at.Add(-time.Minute)})
	}
	s.save(t, s.blog, t0.Add(2*time.Hour), "the SCP file returned 500")
	s.save(t, s.blog, t0.Add(5*time.Hour), "the SCP file returned 500")
	s.save(t, s.blog, t0.Add(6*time.Hour), "")
	b := s.builder(t, Options{FeedEntries: 10, FailingAfter: 2 * time.Hour, HubURL: "https://hub.example/"})
	spec, err := b.SiteSpec(t.Context(), s.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Path != "sites/"+s.site.PublicID || len(s.site.PublicID) != 32 || spec.Meta.Title != "https://rich.example/ (all collections)" || spec.Meta.AlternateURL != "https://rich.example/" {
		t.Errorf("site spec %+v", spec)
	}
	for _, perPage := range []bool{false, true} {
		seen := map[string]bool{}
		statuses := 0
		var last time.Time
		pg := Page{PerPage: perPage}
		for docs := 1; ; docs++ {
			f := build(t, b, spec, feeds.RSS, pg)
			if f.HubURL != "https://hub.example/" || !strings.HasPrefix(f.SelfURL, testBase+"sites/"+s.site.PublicID+".rss") {
				t.Fatalf("links: hub %q, self %q", f.HubURL, f.SelfURL)
			}
			if (pg.Before == nil) != (f.FirstURL == "") {
				t.Errorf("page %d: first %q", docs, f.FirstURL)
			}
			for _, e := range f.Entries {
				if seen[e.ID] {
					t.Errorf("entry %s on two pages", e.ID)
				}
				seen[e.ID] = true
				if strings.Contains(e.ID, "/outage/") {
					statuses++
				}
				if !last.IsZero() && e.Updated.After(last) {
					t.Errorf("entry %s (%v) after an older one", e.ID, e.Updated)
				}
				last = e.Updated
			}
			if f.NextURL == "" {
				break
			}
			if len(f.Entries) != 10 || docs > 5 {
				t.Fatalf("page %d has %d entries and a next page", docs, len(f.Entries))
			}
			next, err := url.Parse(f.NextURL)
			if err != nil || next.Query().Get("entries") == "page" != perPage {
				t.Fatalf("next %q: %v", f.NextURL, err)
			}
			c, ok := ParseCursor(next.Query().Get("before"))
			if !ok {
				t.Fatalf("next %q has no cursor", f.NextURL)
			}
			pg.Before = &c
		}
		// Each collection's first complete harvest is its "now
		// following" entry: the art one's digest, the blog's a third
		// entry; with an entry per change, both come beside the changes.
		want := 28
		if perPage {
			want = 29
		}
		if len(seen) != want || statuses != 2 {
			t.Errorf("per page %v: %d entries, %d of them status entries; want %d and 2", perPage, len(seen), statuses, want)
		}
	}
}

// TestBuildIDsStable: a document built again, by another builder, has the
// same ids and dates; ids are tag URIs under the base URL's host.
func TestBuildIDsStable(t *testing.T) {
	s := newTestStore(t)
	s.save(t, s.art, t0, "", db.Change{URL: "https://rich.example/art/a.html", Kind: "created", Datetime: t0.Add(-time.Hour)})
	entries := func() []feeds.Entry {
		b := s.builder(t, Options{})
		spec, err := b.CollectionSpec(t.Context(), s.art.ID)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Concat(build(t, b, spec, feeds.Atom, Page{}).Entries, build(t, b, spec, feeds.Atom, Page{PerPage: true}).Entries)
	}
	first, again := entries(), entries()
	if len(first) != 3 {
		t.Fatalf("%d entries, want the first harvest's, then it and a page entry", len(first))
	}
	if first[0].ID != first[1].ID || !strings.HasPrefix(first[0].Title, "Now following Art: ") {
		t.Errorf("the first harvest's entry: %q %q in one mode, %q in the other", first[0].ID, first[0].Title, first[1].ID)
	}
	for i := range first {
		if first[i].ID != again[i].ID || !first[i].Updated.Equal(again[i].Updated) {
			t.Errorf("entry %d: %s at %v, then %s at %v", i, first[i].ID, first[i].Updated, again[i].ID, again[i].Updated)
		}
		if !strings.HasPrefix(first[i].ID, "tag:tidings.test,") {
			t.Errorf("entry id %q is not a tag URI of tidings.test", first[i].ID)
		}
	}
	if first[0].Link != "https://rich.example/" || first[2].Link != "https://rich.example/art/a.html" {
		t.Errorf("links: first harvest %q, page entry %q", first[0].Link, first[2].Link)
	}
}

func TestSpecsOfMissingFeeds(t *testing.T) {
	s := newTestStore(t)
	b := s.builder(t, Options{})
	if _, err := b.CollectionSpec(t.Context(), 999); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("collection 999: %v", err)
	}
	if _, err := b.SiteSpec(t.Context(), 999); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("site 999: %v", err)
	}
	if _, err := b.UserSpec(t.Context(), "no-such-token"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("user feed of an unknown token: %v", err)
	}
}

// topicsOf lists a feed's WebSub topics: every format, both entry modes.
func topicsOf(bases ...string) []string {
	var out []string
	for _, base := range bases {
		for _, f := range feeds.Formats {
			u := testBase + base + "." + f.Ext()
			out = append(out, u, u+"?entries=page")
		}
	}
	slices.Sort(out)
	return out
}

// TestChangedFeeds: a run that stored changes, or whose failure began a
// status entry, changed its collection's feeds, its site's and its
// followers'; a run that added nothing changed none.
func TestChangedFeeds(t *testing.T) {
	s := newTestStore(t)
	u, err := s.store.CreateUser(t.Context(), "ann", "x", "anntoken", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Follow(t.Context(), u.ID, s.site.ID); err != nil {
		t.Fatal(err)
	}
	b := s.builder(t, Options{FailingAfter: 90 * time.Minute})
	// Topics are the public-id addresses readers subscribe to.
	art, blog, site := "feeds/"+s.art.PublicID, "feeds/"+s.blog.PublicID, "sites/"+s.site.PublicID
	changed := func(crs ...Harvested) []string {
		t.Helper()
		topics, err := b.ChangedFeeds(t.Context(), s.site.ID, crs)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(topics)
		return topics
	}
	ch := db.Change{URL: "https://rich.example/art/a.html", Kind: "created", Datetime: t0}
	// A first harvest gives a feed its "now following" entry, changes or not.
	if got, want := changed(s.save(t, s.art, t0, "", ch), s.save(t, s.blog, t0, "")), topicsOf(art, blog, site, "u/anntoken"); !slices.Equal(got, want) {
		t.Errorf("a first harvest: %q, want %q", got, want)
	}
	ch2 := db.Change{URL: "https://rich.example/art/b.html", Kind: "created", Datetime: t0.Add(30 * time.Minute)}
	if got, want := changed(s.save(t, s.art, t0.Add(30*time.Minute), "", ch2), s.save(t, s.blog, t0.Add(30*time.Minute), "")), topicsOf(art, site, "u/anntoken"); !slices.Equal(got, want) {
		t.Errorf("a new change: %q, want %q", got, want)
	}
	if got := changed(s.save(t, s.art, t0.Add(time.Hour), "", ch), s.save(t, s.blog, t0.Add(time.Hour), "")); len(got) != 0 {
		t.Errorf("nothing new: %q", got)
	}
	if got := changed(s.save(t, s.blog, t0.Add(2*time.Hour), "the SCP file returned 500")); len(got) != 0 {
		t.Errorf("a failure not yet long enough: %q", got)
	}
	if got, want := changed(s.save(t, s.blog, t0.Add(4*time.Hour), "the SCP file returned 500")), topicsOf(blog, site, "u/anntoken"); !slices.Equal(got, want) {
		t.Errorf("a failing streak noticed: %q, want %q", got, want)
	}
	if got := changed(s.save(t, s.blog, t0.Add(5*time.Hour), "the SCP file returned 500")); len(got) != 0 {
		t.Errorf("a failing streak going on: %q", got)
	}
	if got, want := changed(s.save(t, s.blog, t0.Add(6*time.Hour), "")), topicsOf(blog, site, "u/anntoken"); !slices.Equal(got, want) {
		t.Errorf("a failing streak ended: %q, want %q", got, want)
	}
}
