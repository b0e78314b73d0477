package resourcesync_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
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

// TestAFreshlyPublishedSiteCountsItsPages: a site published with an empty
// change list beside a resource list of 5 pages (what `tidings publish`
// writes first) is followed with its 5 pages counted in the feed's first
// entry, not 0.
func TestAFreshlyPublishedSiteCountsItsPages(t *testing.T) {
	site := harvesttest.NewChangeListSite(t)
	site.Set("/cap.xml", harvesttest.PlainHead+`<rs:ln rel="up" href="BASE/.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>BASE/resources.xml</loc><rs:md capability="resourcelist"/></url>
<url><loc>BASE/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`)
	var list strings.Builder
	list.WriteString(harvesttest.PlainHead + `<rs:md capability="resourcelist" at="2026-11-20T00:00:00Z"/>`)
	for _, p := range []string{"index.html", "a.html", "b.html", "c.html", "d.html"} {
		list.WriteString("<url><loc>BASE/" + p + "</loc></url>\n")
	}
	site.Set("/resources.xml", list.String()+"</urlset>")
	site.Set("/changes.xml", harvesttest.PlainHead+`<rs:md capability="changelist" from="2026-11-20T00:00:00Z"/></urlset>`)
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	rep := harvesttest.Follow(t, h, site.URL+"/")
	atom := harvesttest.CollectionAtom(t, store, rep.Collections[0].Collection.ID, false)
	if !strings.Contains(atom, ": 5 pages") {
		t.Errorf("the first entry does not count the 5 pages:\n%s", atom)
	}
}

// TestDatetimesKeepTheirMicroseconds: a change list's datetime with
// microseconds is stored with them; and a change stored in milliseconds
// (as an older tidings kept it) read again in microseconds is the same
// change, not a new one.
func TestDatetimesKeepTheirMicroseconds(t *testing.T) {
	site := harvesttest.NewChangeListSite(t)
	entry := func(name, at string) string {
		return `<url><loc>BASE/` + name + `</loc><rs:md change="updated" datetime="` + at + `"/></url>` + "\n"
	}
	site.Set("/changes.xml", harvesttest.PlainHead+`<rs:md capability="changelist"/>`+"\n"+
		entry("a.html", "2026-11-20T13:00:02.123456Z")+entry("b.html", "2026-11-20T13:00:03.123Z")+"</urlset>")
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{Now: func() time.Time { return time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC) }}))
	harvesttest.Follow(t, h, site.URL+"/")
	times := map[string]string{}
	store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		times[strings.TrimPrefix(c.URL, site.URL)] = c.Datetime.UTC().Format(time.RFC3339Nano)
		return nil
	})
	if got := times["/a.html"]; got != "2026-11-20T13:00:02.123456Z" {
		t.Errorf("a.html stored at %s, want its microseconds", got)
	}
	// b.html's change, stored in milliseconds, is now published with
	// microseconds: the same change.
	site.Set("/changes.xml", harvesttest.PlainHead+`<rs:md capability="changelist"/>`+"\n"+
		entry("a.html", "2026-11-20T13:00:02.123456Z")+entry("b.html", "2026-11-20T13:00:03.123999Z")+"</urlset>")
	if got := harvesttest.HarvestSite(t, store, h, site.URL+"/").Changes(); got != 0 {
		t.Errorf("the second harvest stored %d new changes, want 0", got)
	}
}
