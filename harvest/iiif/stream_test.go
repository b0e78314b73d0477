package iiif

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// museum serves the stream of TestStreamInThreeVersions at version v (1
// to 3): a home page that links it, the collection, its pages, and the
// Manifests of objects whose activities carry no label.
func museum(s *streamSite, v int, now time.Time) {
	day := func(n float64) time.Time { return now.Add(-time.Duration(n * float64(24*time.Hour))) }
	s.set("/", htmlType, `<!doctype html><html><head><title>Rijks Test Museum</title>
<link rel="alternate" type='application/ld+json;profile="http://iiif.io/api/discovery/1/context.json"' href="/activity/all-changes">
</head><body>Collection</body></html>`)
	s.set("/iiif/2/manifest", ldType, `{"@context": "http://iiif.io/api/presentation/3/context.json", "id": "BASE/iiif/2/manifest", "type": "Manifest",
 "label": {"nl": ["Zelfportret"], "en": ["Self-portrait"]},
 "homepage": [{"id": "BASE/objects/2", "type": "Text", "format": "text/html", "label": {"en": ["Self-portrait"]}}]}`)
	s.set("/iiif/3/manifest", jsonType, `{"@id": "BASE/iiif/3/manifest", "@type": "sc:Manifest", "label": "Het melkmeisje"}`)
	s.set("/iiif/1/manifest", ldType, `{"id": "BASE/iiif/1/manifest", "type": "Manifest", "label": {"en": ["The Night Watch"]}}`)
	s.set("/iiif/7/manifest", ldType, `{"id": "BASE/iiif/7/manifest", "type": "Manifest", "label": {"de": ["Die Brücke"]}}`)
	nightWatch := `"label": {"nl": ["De Nachtwacht"], "en": ["The Night Watch"]}`
	s.set("/activity/page-0", jsonType, pageDoc("/activity/page-0", "",
		act("Create", "1", day(20), nightWatch), act("Create", "2", day(19)), act("Create", "3", day(18)),
		act("Create", "4", day(17), `"label": {"none": ["Winter landscape"]}`)))
	// The same activity twice: at the end of one page and the start of
	// the next, as a stream rebuilt at a page boundary has it.
	s.set("/activity/page-1", plainType, pageDoc("/activity/page-1", "/activity/page-0",
		act("Update", "1", day(10), nightWatch), act("Update", "3", day(9))))
	page2 := []string{act("Update", "3", day(9)), act("Delete", "4", day(8))}
	last := "/activity/page-2"
	if v >= 2 {
		page2 = append(page2, act("Move", "2", day(5), `"target": {"id": "BASE/iiif/2b/manifest", "type": "Manifest"}`))
		s.set("/iiif/2b/manifest", ldType, `{"id": "BASE/iiif/2b/manifest", "type": "Manifest", "label": {"en": ["Self-portrait"]},
 "homepage": {"id": "BASE/objects/2b", "type": "Text", "format": "text/html"}}`)
		s.set("/iiif/5/manifest", ldType, `{"id": "BASE/iiif/5/manifest", "type": "Manifest", "label": {"en": ["The Milkmaid (loan)"]}}`)
		s.set("/activity/page-3", ldType, pageDoc("/activity/page-3", "/activity/page-2",
			act("Add", "5", day(3), `"target": {"id": "BASE/activity/all-changes", "type": "OrderedCollection"}`),
			act("Remove", "1", day(2), `"origin": {"id": "BASE/activity/all-changes", "type": "OrderedCollection"}`),
			act("Add", "6", day(2), `"target": {"id": "https://aggregator.example/changes", "type": "OrderedCollection"}`),
			act("Remove", "3", day(2), `"origin": {"id": "https://aggregator.example/changes", "type": "OrderedCollection"}`)))
		last = "/activity/page-3"
	}
	if v >= 3 {
		s.set("/activity/page-4", ldType, pageDoc("/activity/page-4", "/activity/page-3",
			act("Update", "3", day(26.0/24)), act("Delete", "2b", day(25.0/24)), refresh(day(1)),
			act("Update", "5", day(23.0/24)), act("Create", "7", day(22.0/24), `"label": {"de": ["Die Brücke"], "fr": ["Le Pont"]}`)))
		last = "/activity/page-4"
	}
	s.set("/activity/page-2", jsonType, pageDoc("/activity/page-2", "/activity/page-1", page2...))
	s.set("/activity/all-changes", ldType, collectionDoc(last))
}

// TestStreamInThreeVersions: a museum's stream read three times, found
// through its home page's link: every resource's newest activity once,
// Move as a removal and an inclusion, Add and Remove only for this
// stream, after a Refresh only removals, the label (in the reader's
// language, else the first given) as the title.
func TestStreamInThreeVersions(t *testing.T) {
	harvesttest.OnEachEngine(t, func(t *testing.T) {
		now := time.Now().UTC().Truncate(time.Second)
		e := newEnv(t, harvestOptions())
		museum(e.site, 1, now)
		rep := e.follow("/")
		if w := harvesttest.Warnings(rep); len(w) > 0 {
			t.Errorf("first harvest warned: %q", w)
		}
		if c := e.collection(); c.Key != e.site.URL+"/activity/all-changes" || c.Title != "Rijks Test Museum" {
			t.Errorf("collection %q titled %q", c.Key, c.Title)
		}
		want := []row{
			{"/objects/2", "created", "Self-portrait", ""},
			{"/iiif/1/manifest", "updated", "The Night Watch", ""},
			{"/iiif/3/manifest", "updated", "Het melkmeisje", ""},
			{"/iiif/4/manifest", "deleted", "", ""},
		}
		checkRows(t, "version 1", e.rows(), want)

		museum(e.site, 2, now)
		if w := harvesttest.Warnings(e.harvest()); len(w) > 0 {
			t.Errorf("second harvest warned: %q", w)
		}
		want = append(want,
			row{"/objects/2", "deleted", "Self-portrait", "Moved to BASE/iiif/2b/manifest"},
			row{"/objects/2b", "created", "Self-portrait", "Moved from BASE/iiif/2/manifest"},
			row{"/iiif/5/manifest", "created", "The Milkmaid (loan)", "Added to the stream"},
			row{"/iiif/1/manifest", "deleted", "The Night Watch", "Removed from the stream"},
		)
		checkRows(t, "version 2", fill(e.rows(), e.site.URL), fill(want, e.site.URL))
		if n := e.site.requests("/activity/page-0"); n != 1 {
			t.Errorf("the oldest page was read %d times, want once", n)
		}

		museum(e.site, 3, now)
		if w := harvesttest.Warnings(e.harvest()); len(w) > 0 {
			t.Errorf("third harvest warned: %q", w)
		}
		want = append(want,
			row{"/objects/2b", "deleted", "Self-portrait", ""},
			row{"/iiif/5/manifest", "updated", "The Milkmaid (loan)", ""},
			row{"/iiif/7/manifest", "created", "Die Brücke", ""},
		)
		checkRows(t, "version 3", fill(e.rows(), e.site.URL), fill(want, e.site.URL))
		for path, n := range map[string]int{"/activity/page-0": 1, "/activity/page-1": 1, "/activity/page-2": 2, "/activity/page-3": 2} {
			if got := e.site.requests(path); got != n {
				t.Errorf("%s read %d times, want %d: the stream is read back to the last harvest only", path, got, n)
			}
		}

		// Harvested again unchanged: nothing new, nothing twice.
		e.harvest()
		checkRows(t, "again", fill(e.rows(), e.site.URL), fill(want, e.site.URL))
		checkFeed(t, e, want)
	})
}

// harvestOptions are the harvester's options in these tests: the
// stream's dates are the test's own, within the first harvest's window.
func harvestOptions() harvest.Options { return harvest.Options{} }

// fill puts the site's address for BASE in rows' summaries.
func fill(rows []row, base string) []row {
	out := slices.Clone(rows)
	for i := range out {
		out[i].summary = strings.ReplaceAll(out[i].summary, "BASE", base)
	}
	return out
}

// checkRows compares the stored rows with want, as sets: every expected
// row once, no other.
func checkRows(t *testing.T, when string, got, want []row) {
	t.Helper()
	key := func(r row) string { return fmt.Sprintf("%s %s %q %q", r.kind, r.url, r.title, r.summary) }
	var g, w []string
	for _, r := range got {
		g = append(g, key(r))
	}
	for _, r := range want {
		w = append(w, key(r))
	}
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("%s: stored rows\n  %s\nwant\n  %s", when, strings.Join(g, "\n  "), strings.Join(w, "\n  "))
	}
}

// checkFeed reads the collection's feed, one entry per change, back with
// gofeed: each change an entry titled by its object's label. With
// TIDINGS_FEED_OUT set the feed is also written there, for a validator.
func checkFeed(t *testing.T, e *env, want []row) {
	t.Helper()
	atom := harvesttest.CollectionAtom(t, e.store, e.collection().ID, true)
	if dir := os.Getenv("TIDINGS_FEED_OUT"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "iiif-"+filepath.Base(t.Name())+".atom"), []byte(atom), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := gofeed.NewParser().ParseString(atom)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, it := range f.Items {
		titles = append(titles, it.Title)
	}
	for _, r := range want {
		title := r.title
		if title == "" {
			title = e.site.URL + r.url
		}
		entry := strings.ToUpper(r.kind[:1]) + r.kind[1:] + ": " + title
		// Entries of objects that share a label add their paths (a
		// Move's removal and inclusion, say).
		if !slices.Contains(titles, entry) && !slices.Contains(titles, entry+" ("+r.url+")") {
			t.Errorf("the feed has no entry %q among %q", entry, titles)
		}
	}
	for _, it := range f.Items {
		if strings.HasPrefix(it.Title, "Created: Self-portrait") && it.Link != e.site.URL+"/objects/2" && it.Link != e.site.URL+"/objects/2b" {
			t.Errorf("entry %q links %q, not the object's home page", it.Title, it.Link)
		}
	}
}
