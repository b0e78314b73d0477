package worker

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/pagetext"
)

// TestAChangeCostsItsTextOnce: a 250 KB page of text that compresses
// little, replaced by another, grows the database by its new snapshot
// and no more than 300 KB in all: its change keeps the counts and both
// texts' hashes, and says so in words. A page of which a third changes
// keeps its lines, stored compressed, and says what they were.
func TestAChangeCostsItsTextOnce(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	store, h, _ := changingHarvester(t, &now, 2)
	site := newChangingSite(t, 1, 250<<10, true)
	site.rewrite(now)
	harvestChanging(t, store, h, site, true)
	before, err := store.FileSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(24 * time.Hour)
	site.rewrite(now)
	harvestChanging(t, store, h, site, false)
	after, err := store.FileSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a 250 KB page replaced: the database grew by %d bytes", after-before)
	if after-before > 300_000 {
		t.Errorf("a 250 KB page replaced grew the database by %d bytes, over 300 KB", after-before)
	}
	ch := updatedChange(t, store)
	var d pagetext.Diff
	if err := json.Unmarshal([]byte(ch.Diff), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Replaced) != 64 || len(d.ReplacedFrom) != 64 || d.Replaced == d.ReplacedFrom || d.Added < 1000 || len(ch.Diff) > 300 {
		t.Errorf("the replaced page's diff (%d bytes): %+v", len(ch.Diff), d)
	}
	if got := feedbuild.TextHTML(ch); !strings.Contains(got, "The page was replaced: ") || !strings.Contains(got, " lines added, ") {
		t.Errorf("the entry says %q", got)
	}
}

// updatedChange is the one updated change stored.
func updatedChange(t *testing.T, store *db.DB) db.Change {
	t.Helper()
	var out []db.Change
	err := store.ExportChanges(t.Context(), db.ExportFilter{}, func(c db.ExportedChange) error {
		if c.Kind == "updated" {
			out = append(out, c.Change)
		}
		return nil
	})
	if err != nil || len(out) != 1 {
		t.Fatalf("%d updated changes, %v", len(out), err)
	}
	return out[0]
}

// TestAPartChangeKeepsItsLines: a page of which a third is rewritten
// keeps its diff of lines, which reads back as what was removed and
// added, and takes the database less than the page's text.
func TestAPartChangeKeepsItsLines(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	store, h, _ := changingHarvester(t, &now, 2)
	site := newChangingSite(t, 1, 14_000, false)
	site.part = 3
	site.rewrite(now)
	harvestChanging(t, store, h, site, true)
	before, err := store.FileSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(24 * time.Hour)
	site.rewrite(now)
	harvestChanging(t, store, h, site, false)
	after, err := store.FileSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ch := updatedChange(t, store)
	var d pagetext.Diff
	if err := json.Unmarshal([]byte(ch.Diff), &d); err != nil {
		t.Fatal(err)
	}
	t.Logf("a third of a 14 KB page rewritten: a diff of %d bytes; the database grew by %d bytes", len(ch.Diff), after-before)
	if d.Replaced != "" || d.Added < 30 || d.Removed < 30 {
		t.Fatalf("the diff: +%d −%d, replaced %q", d.Added, d.Removed, d.Replaced)
	}
	// The change's row (its diff compressed) and the page's new snapshot
	// in place of the old one: less than the text once (SQLite grows its
	// file a page of 4 KiB at a time).
	if after-before > 14_000 {
		t.Errorf("the change grew the database by %d bytes, more than the page's 14 KB of text", after-before)
	}
	first := d.Ops[0].Ins
	for _, op := range d.Ops {
		if len(op.Ins) > 0 {
			first = op.Ins
			break
		}
	}
	if got := feedbuild.TextHTML(ch); !strings.Contains(got, pagetext.AddedLabel) || !strings.Contains(got, first[0][:20]) {
		t.Errorf("the entry does not show the first added line %q: %.300q", first[0], got)
	}
}
