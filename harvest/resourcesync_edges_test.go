package harvest

import (
	"context"
	"slices"
	"testing"

	"tidings/db"
)

// rsSite serves a one-collection ResourceSync site whose change list is
// set by the test.
func rsSite(t *testing.T) *plainSite {
	site := newPlainSite(t)
	site.set("/.well-known/resourcesync", plainHead+`<rs:md capability="description"/>
<url><loc>BASE/cap.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="BASE/"/></url>
</urlset>`)
	site.set("/cap.xml", plainHead+`<rs:ln rel="up" href="BASE/.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>BASE/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`)
	return site
}

// storedURLs lists the pages of every stored change, sorted.
func storedURLs(t *testing.T, store *db.DB, base string) []string {
	t.Helper()
	var out []string
	err := store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		out = append(out, c.URL[len(base):])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestChangesAtTheLastProcessingTimeAreKept: with date-only datetimes,
// every change of a day has the same time, which becomes the last
// processing time; a change of that day published after the harvest must
// still be recorded, once.
func TestChangesAtTheLastProcessingTimeAreKept(t *testing.T) {
	site := rsSite(t)
	day := "2026-11-20"
	list := plainHead + `<rs:md capability="changelist"/>
<url><loc>BASE/a.html</loc><rs:md change="updated" datetime="` + day + `"/></url>
`
	site.set("/changes.xml", list+"</urlset>")
	store, h := testHarvester(t, Options{})
	if got := followURL(t, h, site.URL+"/").Changes(); got != 1 {
		t.Fatalf("follow: %d new changes, want 1", got)
	}
	site.set("/changes.xml", list+`<url><loc>BASE/b.html</loc><rs:md change="updated" datetime="`+day+`"/></url>
</urlset>`)
	if got := harvestURL(t, store, h, site.URL+"/").Changes(); got != 1 {
		t.Errorf("second harvest: %d new changes, want 1 (b.html, dated the same day)", got)
	}
	if got := harvestURL(t, store, h, site.URL+"/").Changes(); got != 0 {
		t.Errorf("third harvest: %d new changes, want 0", got)
	}
	if got, want := storedURLs(t, store, site.URL), []string{"/a.html", "/b.html"}; !slices.Equal(got, want) {
		t.Errorf("stored %q, want %q", got, want)
	}
}

// TestAnUnneededBadDateDoesNotDropTheEntry: a malformed lastmod, from or
// until beside a valid datetime costs only that attribute; a malformed
// datetime, or a malformed lastmod that would date the change, still
// skips the entry.
func TestAnUnneededBadDateDoesNotDropTheEntry(t *testing.T) {
	site := rsSite(t)
	site.set("/changes.xml", plainHead+`<rs:md capability="changelist"/>
<url><loc>BASE/badlastmod.html</loc><lastmod>last tuesday</lastmod><rs:md change="updated" datetime="2026-11-20T10:00:00Z"/></url>
<url><loc>BASE/baduntil.html</loc><rs:md change="created" datetime="2026-11-20T11:00:00Z" until="soon"/></url>
<url><loc>BASE/baddatetime.html</loc><lastmod>2026-11-20</lastmod><rs:md change="updated" datetime="yesterday"/></url>
<url><loc>BASE/lastmodonly.html</loc><lastmod>never</lastmod><rs:md change="updated"/></url>
</urlset>`)
	store, h := testHarvester(t, Options{})
	followURL(t, h, site.URL+"/")
	if got, want := storedURLs(t, store, site.URL), []string{"/badlastmod.html", "/baduntil.html"}; !slices.Equal(got, want) {
		t.Errorf("stored %q, want %q", got, want)
	}
}
