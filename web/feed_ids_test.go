package web

import (
	"slices"
	"strings"
	"testing"

	"github.com/mmcdole/gofeed"

	"tidings/feeds"
)

// allFeedPaths is every feed of the fixture site in every format and mode.
func allFeedPaths() []string {
	var out []string
	for _, base := range []string{"/feeds/1", "/feeds/2", "/sites/1"} {
		for _, mode := range []string{"", "?entries=page"} {
			for _, f := range feeds.Formats {
				out = append(out, base+"."+f.Ext()+mode)
			}
		}
	}
	return out
}

// TestEntryIDsStable: re-harvesting, restarting and re-rendering never
// change an id or re-date an entry; a new change keeps every old id and
// adds exactly one.
func TestEntryIDsStable(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	paths := allFeedPaths()
	type snapshot map[string][]entryDate
	take := func() snapshot {
		h := fx.server(t)
		s := snapshot{}
		for _, p := range paths {
			s[p] = entryDates(anyFeed(t, h, p))
		}
		return s
	}
	first := take()
	for _, p := range paths {
		if len(first[p]) == 0 {
			t.Fatalf("%s has no entries", p)
		}
	}
	same := func(step string, got snapshot) {
		t.Helper()
		for _, p := range paths {
			if !slices.Equal(got[p], first[p]) {
				t.Errorf("%s: %s changed:\nbefore %v\n after %v", step, p, first[p], got[p])
			}
		}
	}
	fx.harvestAgain(t)
	same("re-harvest", take())
	if err := fx.store.Close(); err != nil {
		t.Fatal(err)
	}
	fx.open(t)
	same("restart", take())

	current := getDoc(t, fx.url("/shrine/changes-current.xml"))
	fx.site.Set("/shrine/changes-current.xml", strings.Replace(current, "</urlset>",
		`<url><loc>{{.Base}}/shrine/new.html</loc><rs:md change="created" datetime="{{ago "1h"}}"/></url></urlset>`, 1))
	fx.harvestAgain(t)
	after := take()
	for _, p := range paths {
		changed := !strings.HasPrefix(p, "/feeds/2")
		var added []entryDate
		for _, e := range after[p] {
			if !slices.Contains(first[p], e) {
				added = append(added, e)
			}
		}
		for _, e := range first[p] {
			if !slices.Contains(after[p], e) {
				t.Errorf("%s lost entry %v after a new change", p, e)
			}
		}
		switch {
		case changed && len(added) != 1:
			t.Errorf("%s gained %d entries after one new change, want 1: %v", p, len(added), added)
		case !changed && len(added) != 0:
			t.Errorf("%s (another collection) gained %v", p, added)
		case changed && added[0].id != newestChange(p, after[p]):
			t.Errorf("%s: the new entry is not first", p)
		}
	}
}

// newestChange is the id of the newest entry of a feed that is not a
// collection's first harvest: with an entry per change, that one is
// dated by the harvest and so comes before the changes it found.
func newestChange(path string, entries []entryDate) string {
	for _, e := range entries {
		if !strings.Contains(path, "entries=page") || !strings.Contains(e.id, "/run/") {
			return e.id
		}
	}
	return ""
}

// entryDate is an entry's id with the date it carries.
type entryDate struct{ id, date string }

func entryDates(f *gofeed.Feed) []entryDate {
	var out []entryDate
	for _, it := range f.Items {
		d := ""
		if it.UpdatedParsed != nil {
			d = it.UpdatedParsed.UTC().String()
		} else if it.PublishedParsed != nil {
			d = it.PublishedParsed.UTC().String()
		}
		out = append(out, entryDate{it.GUID, d})
	}
	return out
}
