package resourcesync_test

import (
	"slices"
	"strings"
	"testing"

	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// TestChangesAtTheLastProcessingTimeAreKept: with date-only datetimes,
// every change of a day has the same time, which becomes the last
// processing time; a change of that day published after the harvest must
// still be recorded, once.
func TestChangesAtTheLastProcessingTimeAreKept(t *testing.T) {
	site := harvesttest.NewChangeListSite(t)
	day := "2026-11-20"
	list := harvesttest.PlainHead + `<rs:md capability="changelist"/>
<url><loc>BASE/a.html</loc><rs:md change="updated" datetime="` + day + `"/></url>
`
	site.Set("/changes.xml", list+"</urlset>")
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	if got := harvesttest.Follow(t, h, site.URL+"/").Changes(); got != 1 {
		t.Fatalf("follow: %d new changes, want 1", got)
	}
	site.Set("/changes.xml", list+`<url><loc>BASE/b.html</loc><rs:md change="updated" datetime="`+day+`"/></url>
</urlset>`)
	if got := harvesttest.HarvestSite(t, store, h, site.URL+"/").Changes(); got != 1 {
		t.Errorf("second harvest: %d new changes, want 1 (b.html, dated the same day)", got)
	}
	if got := harvesttest.HarvestSite(t, store, h, site.URL+"/").Changes(); got != 0 {
		t.Errorf("third harvest: %d new changes, want 0", got)
	}
	if got, want := harvesttest.StoredURLs(t, store, site.URL), []string{"/a.html", "/b.html"}; !slices.Equal(got, want) {
		t.Errorf("stored %q, want %q", got, want)
	}
}

// TestAnUnneededBadDateDoesNotDropTheEntry: a malformed lastmod, from or
// until beside a valid datetime costs only that attribute; a malformed
// datetime, or a malformed lastmod that would date the change, still
// skips the entry.
func TestAnUnneededBadDateDoesNotDropTheEntry(t *testing.T) {
	site := harvesttest.NewChangeListSite(t)
	site.Set("/changes.xml", harvesttest.PlainHead+`<rs:md capability="changelist"/>
<url><loc>BASE/badlastmod.html</loc><lastmod>last tuesday</lastmod><rs:md change="updated" datetime="2026-11-20T10:00:00Z"/></url>
<url><loc>BASE/baduntil.html</loc><rs:md change="created" datetime="2026-11-20T11:00:00Z" until="soon"/></url>
<url><loc>BASE/baddatetime.html</loc><lastmod>2026-11-20</lastmod><rs:md change="updated" datetime="yesterday"/></url>
<url><loc>BASE/lastmodonly.html</loc><lastmod>never</lastmod><rs:md change="updated"/></url>
</urlset>`)
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	harvesttest.Follow(t, h, site.URL+"/")
	if got, want := harvesttest.StoredURLs(t, store, site.URL), []string{"/badlastmod.html", "/baduntil.html"}; !slices.Equal(got, want) {
		t.Errorf("stored %q, want %q", got, want)
	}
}

// TestALateEntryIsTaken: a change list that gains an entry dated before
// the last processing time (published late) has it recorded, with a
// warning, rather than dropped silently; and once only.
func TestALateEntryIsTaken(t *testing.T) {
	site := harvesttest.NewChangeListSite(t)
	list := harvesttest.PlainHead + `<rs:md capability="changelist"/>
<url><loc>BASE/a.html</loc><rs:md change="updated" datetime="2026-11-20T10:00:00Z"/></url>
`
	site.Set("/changes.xml", list+"</urlset>")
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	harvesttest.Follow(t, h, site.URL+"/")
	site.Set("/changes.xml", list+`<url><loc>BASE/b.html</loc><rs:md change="updated" datetime="2026-11-19T10:00:00Z"/></url>
</urlset>`)
	rep := harvesttest.HarvestSite(t, store, h, site.URL+"/")
	if got := rep.Changes(); got != 1 {
		t.Errorf("second harvest: %d new changes, want 1 (b.html, dated before the last harvest)", got)
	}
	if w := strings.Join(harvesttest.Warnings(rep), "\n"); !strings.Contains(w, "gained entries dated before the last harvest (1)") {
		t.Errorf("warnings %q", w)
	}
	if got := harvesttest.HarvestSite(t, store, h, site.URL+"/").Changes(); got != 0 {
		t.Errorf("third harvest: %d new changes, want 0", got)
	}
}
