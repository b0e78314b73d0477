package web

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// pagedStore stores a site with two collections. The first has 118
// harvests that each found one change, three by three at the same instant
// so that page boundaries fall inside ties. The second has a failing
// streak whose two status entries fall at the times of two of those
// harvests: 120 entries in the site's feed, in either mode, besides the
// entries of each collection's first complete harvest.
func pagedStore(t *testing.T) (*db.DB, db.Collection) {
	t.Helper()
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "tidings.db"))
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
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := 0
	save := func(col db.Collection, at time.Time, msg string, changes ...db.Change) {
		t.Helper()
		// Several runs end at one time here, to test ties; like real runs
		// of a collection, which never overlap, none start together.
		runs++
		_, err := store.SaveCollectionHarvest(t.Context(), db.CollectionHarvest{
			Run:     db.Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at.Add(-time.Duration(runs) * time.Millisecond), FinishedAt: at, Error: msg},
			Changes: changes,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 118 {
		at := t0.Add(time.Duration(i/3) * time.Hour)
		save(cols[0], at, "", db.Change{URL: fmt.Sprintf("https://rich.example/art/%03d.html", i), Kind: "updated", Datetime: at.Add(-30 * time.Minute)})
	}
	save(cols[1], t0.Add(20*time.Hour), "the change list returned 500")
	save(cols[1], t0.Add(21*time.Hour), "the change list returned 500")
	save(cols[1], t0.Add(22*time.Hour), "")
	return store, cols[0]
}

// TestPagingReachesEveryEntryOnce follows the next links of a feed of 120
// entries, 50 a page, in every format and mode.
func TestPagingReachesEveryEntryOnce(t *testing.T) {
	t.Parallel()
	store, col := pagedStore(t)
	s, err := New(store, Options{BaseURL: testBase, FeedEntries: 50, FailingAfter: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	for _, base := range []string{public(t, store, fmt.Sprintf("/feeds/%d", col.ID)), public(t, store, fmt.Sprintf("/sites/%d", col.SiteID))} {
		for _, mode := range []string{"", "?entries=page"} {
			for _, format := range feeds.Formats {
				head := base + "." + format.Ext() + mode
				t.Run(head, func(t *testing.T) {
					seen := map[string]int{}
					statuses := 0
					var last *time.Time
					path, docs := head, 0
					for path != "" && docs < 10 {
						docs++
						f := anyFeed(t, h, path)
						links := rels(f)
						if n := len(f.Items); n > 50 || (links["next"] != "" && n != 50) {
							t.Errorf("%s has %d entries", path, n)
						}
						if docs > 1 && format != feeds.JSON && (links["first"] != testBase+strings.TrimPrefix(head, "/") || links["current"] != links["first"]) {
							t.Errorf("%s: first %q, current %q", path, links["first"], links["current"])
						}
						if format != feeds.JSON && links["next"] != links["prev-archive"] {
							t.Errorf("%s: next %q, prev-archive %q", path, links["next"], links["prev-archive"])
						}
						for _, it := range f.Items {
							seen[it.GUID]++
							if strings.Contains(it.GUID, "/outage/") {
								statuses++
							}
							d := it.UpdatedParsed
							if d == nil {
								d = it.PublishedParsed
							}
							if last != nil && d.After(*last) {
								t.Errorf("%s: %s is newer than the entry before it", path, it.GUID)
							}
							last = d
						}
						path = strings.TrimPrefix(links["next"], strings.TrimSuffix(testBase, "/"))
					}
					// Each collection's first complete harvest is its
					// "now following" entry: the art one's is its first
					// digest, the blog's one more; with an entry per
					// change, both come beside the changes.
					want, wantStatus := 121, 2
					if strings.HasPrefix(head, "/feeds/") {
						want, wantStatus = 118, 0
					}
					if mode != "" {
						want++
					}
					if docs != 3 || len(seen) != want || statuses != wantStatus {
						t.Errorf("%d documents, %d distinct entries (%d status), want 3, %d (%d)", docs, len(seen), statuses, want, wantStatus)
					}
					for id, n := range seen {
						if n != 1 {
							t.Errorf("%s seen %d times", id, n)
						}
					}
				})
			}
		}
	}

	for _, bad := range []string{"x", "1.0", "1.4.3", "01.0.1", "1.0.-1", "1.0.1.2", ""} {
		path := public(t, store, fmt.Sprintf("/feeds/%d.atom?before=%s", col.ID, bad))
		if rec := serve(t, h, path); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", path, rec.Code)
		}
	}
}
