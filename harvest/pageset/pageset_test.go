package pageset

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tidings/db"
)

var (
	psDoc = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) // the document's time
	psOld = psDoc.Add(-48 * time.Hour)
	psMid = psDoc.Add(-24 * time.Hour)
)

func psAt(t time.Time) *time.Time { return &t }

// psPage is a page of example.org/<name>.
func psPage(name string, mod *time.Time, hash, title string) db.Page {
	return db.Page{URL: "https://example.org/" + name, Modified: mod, Hash: hash, Title: title}
}

// psString renders changes and stored pages for comparison.
func psString(changes []Change, pages []db.Page, gone []string) string {
	var b strings.Builder
	for _, c := range changes {
		fmt.Fprintf(&b, "%s %s %s %q; ", c.Kind, strings.TrimPrefix(c.Page.URL, "https://example.org/"), c.At.Format(time.RFC3339), c.Page.Title)
	}
	b.WriteString("| store")
	for _, p := range pages {
		mod := "-"
		if p.Modified != nil {
			mod = p.Modified.Format(time.RFC3339)
		}
		fmt.Fprintf(&b, " %s@%s#%s%q", strings.TrimPrefix(p.URL, "https://example.org/"), mod, p.Hash, p.Title)
	}
	b.WriteString(" | forget")
	for _, u := range gone {
		b.WriteString(" " + strings.TrimPrefix(u, "https://example.org/"))
	}
	return b.String()
}

// hashOnly judges pages by their content alone, as a source whose
// modified times cannot be trusted (a watched page's Last-Modified) would.
func hashOnly(known, listed db.Page) Verdict {
	if known.Hash != listed.Hash {
		return Revised
	}
	return Same
}

func TestPageSetDiff(t *testing.T) {
	stored := []db.Page{
		psPage("a", psAt(psOld), "h1", "A"),
		psPage("b", psAt(psOld), "h2", "B"),
		psPage("late", psAt(psDoc.Add(time.Hour)), "h3", "Late"), // changed after the document
		psPage("bare", nil, "", ""),
	}
	tests := []struct {
		name   string
		rules  Rules
		listed []db.Page
		want   string
	}{{
		name:   "a new page is created at its modified time",
		listed: []db.Page{psPage("new", psAt(psMid), "h9", "New")},
		want:   `created new 2026-11-19T12:00:00Z "New"; | store new@2026-11-19T12:00:00Z#h9"New" | forget`,
	}, {
		name:   "a new page modified after the document is dated by the document",
		listed: []db.Page{psPage("new", psAt(psDoc.Add(time.Hour)), "h9", "")},
		want:   `created new 2026-11-20T12:00:00Z ""; | store new@2026-11-20T13:00:00Z#h9"" | forget`,
	}, {
		name:   "a new page without a modified time is dated by the document",
		listed: []db.Page{psPage("new", nil, "", "")},
		want:   `created new 2026-11-20T12:00:00Z ""; | store new@-#"" | forget`,
	}, {
		name:   "the same version is unchanged and not stored again",
		listed: []db.Page{psPage("a", psAt(psOld), "h1", "A")},
		want:   `| store | forget`,
	}, {
		name:   "a later modified time is an update dated by it",
		listed: []db.Page{psPage("a", psAt(psMid), "h1", "A2")},
		want:   `updated a 2026-11-19T12:00:00Z "A2"; | store a@2026-11-19T12:00:00Z#h1"A2" | forget`,
	}, {
		name:   "a new hash under the same modified time is an update dated by the document",
		listed: []db.Page{psPage("a", psAt(psOld), "h1b", "A")},
		want:   `updated a 2026-11-20T12:00:00Z "A"; | store a@2026-11-18T12:00:00Z#h1b"A" | forget`,
	}, {
		name:   "an older version is stale: no change, nothing stored",
		listed: []db.Page{psPage("b", psAt(psOld.Add(-time.Hour)), "h2-old", "B0")},
		want:   `| store | forget`,
	}, {
		name:   "missing markers are unknown, not changed: the known ones are kept",
		listed: []db.Page{psPage("a", nil, "", "A"), psPage("bare", psAt(psMid), "h5", "")},
		want:   `| store bare@2026-11-19T12:00:00Z#h5"" | forget`,
	}, {
		name:   "a second entry in one document is compared with the first",
		listed: []db.Page{psPage("new", psAt(psOld), "h9", ""), psPage("new", psAt(psMid), "h9", ""), psPage("new", psAt(psMid), "h9", "")},
		want:   `created new 2026-11-18T12:00:00Z ""; updated new 2026-11-19T12:00:00Z ""; | store new@2026-11-19T12:00:00Z#h9"" | forget`,
	}, {
		name:   "a delta's silence deletes nothing",
		listed: []db.Page{psPage("a", psAt(psOld), "h1", "A")},
		want:   `| store | forget`,
	}, {
		name:   "a complete document deletes what it leaves out, dated by it, titled as last known",
		rules:  Rules{Complete: true},
		listed: []db.Page{psPage("a", psAt(psOld), "h1", "A")},
		want:   `deleted b 2026-11-20T12:00:00Z "B"; deleted bare 2026-11-20T12:00:00Z ""; | store | forget b bare`,
	}, {
		name:   "a complete document listing every page deletes nothing",
		rules:  Rules{Complete: true},
		listed: []db.Page{psPage("a", psAt(psOld), "h1", "A"), psPage("b", psAt(psOld), "h2", "B"), psPage("bare", nil, "", ""), psPage("late", psAt(psDoc.Add(time.Hour)), "h3", "Late")},
		want:   `| store | forget`,
	}, {
		name:   "a rule of the adapter's own judges versions: older but different content is an update",
		rules:  Rules{Compare: hashOnly},
		listed: []db.Page{psPage("b", psAt(psOld.Add(-time.Hour)), "h2b", "B")},
		want:   `updated b 2026-11-20T12:00:00Z "B"; | store b@2026-11-18T11:00:00Z#h2b"B" | forget`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			known := map[string]db.Page{}
			for _, p := range stored {
				known[p.URL] = p
			}
			set := New(known)
			doc := set.Read(psDoc, tt.rules)
			var changes []Change
			for _, p := range tt.listed {
				if c, ok := doc.Add(p); ok {
					changes = append(changes, c)
				}
			}
			changes = append(changes, doc.Commit()...)
			pages, gone := set.ToStore()
			if got := psString(changes, pages, gone); got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestPageSetDocumentsInTurn: a document reads the set as the documents
// committed before it left it, and one never committed (found invalid
// halfway) leaves no trace.
func TestPageSetDocumentsInTurn(t *testing.T) {
	set := New(nil)
	if !set.Fresh() {
		t.Fatal("an empty set is not fresh")
	}
	first := set.Read(psMid, Rules{Complete: true})
	first.Add(psPage("a", psAt(psOld), "h1", "A"))
	first.Add(psPage("b", psAt(psOld), "h2", "B"))
	if !set.Fresh() {
		t.Fatal("a document changed the set before its commit")
	}
	first.Commit()
	rejected := set.Read(psDoc, Rules{Complete: true})
	rejected.Add(psPage("c", psAt(psOld), "h3", "C"))
	// rejected is dropped without a commit.
	delta := set.Read(psDoc, Rules{})
	c, ok := delta.Add(psPage("a", psAt(psDoc), "h1b", "A2"))
	if !ok || c.Kind != "updated" || !c.At.Equal(psDoc) {
		t.Errorf("delta after snapshot: %+v, %v", c, ok)
	}
	if _, ok := delta.Add(psPage("c", psAt(psOld), "h3", "C")); !ok {
		t.Error("a page of a rejected document was taken as known")
	}
	delta.Commit()
	// A later snapshot, older than the delta's change, does not delete
	// what the delta changed after it.
	snap := set.Read(psMid.Add(time.Hour), Rules{Complete: true})
	snap.Add(psPage("c", psAt(psOld), "h3", "C"))
	deleted := snap.Commit()
	pages, gone := set.ToStore()
	if got := psString(deleted, pages, gone); got != `deleted b 2026-11-19T13:00:00Z "B"; | store a@2026-11-20T12:00:00Z#h1b"A2" c@2026-11-18T12:00:00Z#h3"C" | forget b` {
		t.Errorf("after three documents: %s", got)
	}
	if set.Fresh() {
		t.Error("a set with pages is fresh")
	}
}

// TestPageSetListAndForget: an entry listed but not compared keeps its
// page; a forgotten one leaves the set without a change, and a later entry
// for it is new.
func TestPageSetListAndForget(t *testing.T) {
	set := New(map[string]db.Page{
		"https://example.org/a": psPage("a", psAt(psOld), "h1", "A"),
		"https://example.org/b": psPage("b", psAt(psOld), "h2", "B"),
		"https://example.org/c": psPage("c", psAt(psOld), "h3", "C"),
	})
	doc := set.Read(psDoc, Rules{Complete: true})
	doc.List("https://example.org/a")
	doc.Add(psPage("b", psAt(psMid), "h2", "B"))
	doc.Forget("https://example.org/b")
	doc.Forget("https://example.org/c")
	c, ok := doc.Add(psPage("c", psAt(psMid), "h3", "C"))
	if !ok || c.Kind != "created" {
		t.Errorf("a forgotten page listed again: %+v, %v", c, ok)
	}
	deleted := doc.Commit()
	pages, gone := set.ToStore()
	if got := psString(deleted, pages, gone); got != `| store c@2026-11-19T12:00:00Z#h3"C" | forget b` {
		t.Errorf("got %s", got)
	}
}
