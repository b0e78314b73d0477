package publish_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"tidings/publish"
	"tidings/rsync"
)

// allChanges reads the collection's changes as a harvester would: through
// the capability list, the index when there is one, and each list it
// names, in order.
func allChanges(t *testing.T, dir, folder string) (lists []*rsync.Document, changes []change) {
	t.Helper()
	cap := readDoc(t, dir, folder+"/capabilitylist.xml")
	var clURL string
	for _, e := range cap.Entries {
		if e.Capability == rsync.CapChangeList {
			clURL = e.Loc
		}
	}
	doc := readDoc(t, dir, clURL[len(base):])
	locs := []string{clURL}
	if doc.IsIndex() {
		locs = nil
		for _, e := range doc.Entries {
			locs = append(locs, e.Loc)
		}
	}
	for _, l := range locs {
		d := readDoc(t, dir, l[len(base):])
		lists = append(lists, d)
		changes = append(changes, changesOf(d)...)
	}
	return lists, changes
}

func TestChangeListIsArchivedWhenFull(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, map[string]string{"index.html": "v0"})
	o := publish.Options{Dir: dir, MaxListEntries: 3}
	publishAt(t, o, "2026-11-01T00:00:00Z")
	var want []change
	start := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	for i := range 4 {
		now := start.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)
		// Two changes a run: the index is updated and a page created.
		writeSite(t, dir, map[string]string{"index.html": fmt.Sprint("v", i+1), fmt.Sprintf("p%d.html", i): "new"})
		publishAt(t, o, now)
		want = append(want, change{base, "updated", now}, change{fmt.Sprintf("%sp%d.html", base, i), "created", now})
	}
	lists, got := allChanges(t, dir, "resourcesync")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes through the index:\n got %v\nwant %v", got, want)
	}
	// 8 changes, 3 to a list: two archived lists and the open one.
	if len(lists) != 3 {
		t.Fatalf("%d lists", len(lists))
	}
	idx := readDoc(t, dir, "resourcesync/changelist-index.xml")
	if !idx.IsIndex() || idx.Capability != rsync.CapChangeList || idx.Link("up") != base+"resourcesync/capabilitylist.xml" {
		t.Fatalf("index: %+v", idx)
	}
	var spans []string
	for _, e := range idx.Entries {
		until := "open"
		if e.Until != nil {
			until = e.Until.Format(time.RFC3339)
		}
		spans = append(spans, fmt.Sprintf("%s %s–%s", e.Loc[len(base):], e.From.Format(time.RFC3339), until))
	}
	wantSpans := []string{
		"resourcesync/changelist-1.xml 2026-11-01T00:00:00Z–2026-11-02T01:00:00Z",
		"resourcesync/changelist-2.xml 2026-11-02T01:00:00Z–2026-11-02T02:00:00Z",
		"resourcesync/changelist.xml 2026-11-02T02:00:00Z–open",
	}
	if !reflect.DeepEqual(spans, wantSpans) {
		t.Fatalf("index entries:\n got %q\nwant %q", spans, wantSpans)
	}
	for i, l := range lists[:2] {
		if l.Until == nil || len(l.Entries) != 3 {
			t.Errorf("archived list %d: until %v, %d entries", i+1, l.Until, len(l.Entries))
		}
	}
	// Archives are never rewritten: a run without changes writes nothing.
	before := snap(t, dir)
	if res := publishAt(t, o, "2026-11-03T00:00:00Z"); len(res.Written) != 0 {
		t.Fatalf("wrote %q", res.Written)
	}
	if !reflect.DeepEqual(before, snap(t, dir)) {
		t.Fatal("the folder changed")
	}
}

func TestChangeListIsArchivedWhenAMonthEnds(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, map[string]string{"index.html": "v0"})
	o := publish.Options{Dir: dir}
	publishAt(t, o, "2026-10-15T12:00:00Z")
	writeSite(t, dir, map[string]string{"index.html": "v1"})
	publishAt(t, o, "2026-10-20T12:00:00Z")
	// November: nothing changed, so nothing is archived yet.
	if res := publishAt(t, o, "2026-11-02T12:00:00Z"); len(res.Written) != 0 {
		t.Fatalf("a run without changes wrote %q", res.Written)
	}
	writeSite(t, dir, map[string]string{"index.html": "v2"})
	res := publishAt(t, o, "2026-11-03T12:00:00Z")
	if res.Collections[0].Archived != 1 {
		t.Fatalf("archived %d lists", res.Collections[0].Archived)
	}
	lists, got := allChanges(t, dir, "resourcesync")
	want := []change{{base, "updated", "2026-10-20T12:00:00Z"}, {base, "updated", "2026-11-03T12:00:00Z"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes:\n got %v\nwant %v", got, want)
	}
	oct, nov := lists[0], lists[1]
	if oct.From.Format(time.RFC3339) != "2026-10-15T12:00:00Z" || oct.Until.Format(time.RFC3339) != "2026-11-01T00:00:00Z" {
		t.Errorf("October's list: %v–%v", oct.From, oct.Until)
	}
	if nov.From.Format(time.RFC3339) != "2026-11-01T00:00:00Z" || nov.Until != nil {
		t.Errorf("November's list: %v–%v", nov.From, nov.Until)
	}
	cap := readDoc(t, dir, "resourcesync/capabilitylist.xml")
	if cap.Entries[1].Loc != base+"resourcesync/changelist-index.xml" {
		t.Errorf("the capability list names %s, not the index", cap.Entries[1].Loc)
	}
}

// An archive is never overwritten, even when the index naming it is gone.
func TestArchivesAreNeverOverwritten(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, map[string]string{"index.html": "v0"})
	o := publish.Options{Dir: dir, MaxListEntries: 1}
	publishAt(t, o, "2026-11-01T00:00:00Z")
	writeSite(t, dir, map[string]string{"index.html": "v1", "a.html": "a"})
	publishAt(t, o, "2026-11-01T01:00:00Z")
	first := snap(t, dir)["resourcesync/changelist-1.xml"]
	if first.data == "" {
		t.Fatal("no archive written")
	}
	if err := os.Remove(filepath.Join(dir, "resourcesync/changelist-index.xml")); err != nil {
		t.Fatal(err)
	}
	writeSite(t, dir, map[string]string{"index.html": "v2", "b.html": "b"})
	publishAt(t, o, "2026-11-01T02:00:00Z")
	s := snap(t, dir)
	if s["resourcesync/changelist-1.xml"] != first {
		t.Error("changelist-1.xml was overwritten")
	}
	if _, ok := s["resourcesync/changelist-2.xml"]; !ok {
		t.Errorf("no changelist-2.xml: %v", keys(s))
	}
}

func keys(s snapshot) []string {
	var out []string
	for k := range s {
		out = append(out, k)
	}
	return out
}
