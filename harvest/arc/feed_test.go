package arc_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"tidings/harvest/arc"
	"tidings/internal/harvesttest"

	"github.com/mmcdole/gofeed"

	"tidings/db"
)

// atomOf renders the site's ARC collection feed (query "" for digests,
// "?entries=page" for one entry per change) as readers get it.
func atomOf(t *testing.T, e *arcEnv, query string) string {
	t.Helper()
	cols, err := e.store.Collections(context.Background(), db.CollectionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	for _, c := range cols {
		if c.Protocol == arc.Name {
			id = c.ID
		}
	}
	if id == 0 {
		t.Fatal("no ARC collection stored")
	}
	return harvesttest.CollectionAtom(t, e.store, id, query == "?entries=page")
}

// TestARCFeedReadByGofeed: a reader sees the summarized entries, with
// the snapshot title as entry title and the tags as categories.
func TestARCFeedReadByGofeed(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	e.site.Set("/", "text/html", "<!doctype html><title>Heron Shrine</title>")
	e.site.Set("/.well-known/arc-sitemap.json", jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "", shrinePages()...))
	e.follow("/")

	f, err := gofeed.NewParser().ParseString(atomOf(t, e, "?entries=page"))
	if err != nil {
		t.Fatal(err)
	}
	// The two changes, and the entry of the collection's first harvest.
	if f.FeedType != "atom" || len(f.Items) != 3 {
		t.Fatalf("feed type %q with %d entries, want atom with the gallery, news and the first harvest's", f.FeedType, len(f.Items))
	}
	var gallery *gofeed.Item
	for _, it := range f.Items {
		if strings.HasSuffix(it.Link, "/gallery.html") {
			gallery = it
		}
	}
	if gallery == nil {
		t.Fatalf("no gallery entry in %+v", f.Items)
	}
	if !strings.Contains(gallery.Title, "The Gallery") {
		t.Errorf("entry title %q, want the snapshot's title in it", gallery.Title)
	}
	if gallery.Description != "Ink drawings of herons, updated weekly." {
		t.Errorf("entry summary %q", gallery.Description)
	}
	if !reflect.DeepEqual(gallery.Categories, []string{"art", "ink"}) {
		t.Errorf("entry categories %q, want the ai_tags [art ink]", gallery.Categories)
	}

	digest, err := gofeed.NewParser().ParseString(atomOf(t, e, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(digest.Items) != 1 || !strings.Contains(digest.Items[0].Content, "The Gallery") {
		t.Errorf("digest entries: %+v", digest.Items)
	}
}
