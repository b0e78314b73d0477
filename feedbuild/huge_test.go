package feedbuild

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"tidings/db"
	"tidings/feeds"
)

// maxFeedBytes is what some readers take of a feed document at most.
const maxFeedBytes = 500_000

// hugeDiff is a stored diff of n lines rewritten, each long and full of
// what feeds escape most, changed every tenth line: what no harvest
// stores any more (it keeps 64 KiB of diff at most), so that the entries'
// own bounds are what keeps the feed small.
func hugeDiff(t *testing.T, n, seed int) string {
	var a, b []string
	for i := range n {
		a = append(a, fmt.Sprintf("%d old <%d> & \"quoted\" ", seed, i)+strings.Repeat("<&>\" ", 20))
		if i%10 == 0 {
			b = append(b, fmt.Sprintf("new & different: %d, %d ", i, seed)+strings.Repeat("&&&& ", 20))
		} else {
			b = append(b, a[i])
		}
	}
	return diffJSON(t, strings.Join(a, "\n"), strings.Join(b, "\n"))
}

// TestFeedOfHugeChanges: a feed of fifty changes whose diffs are each
// hundreds of kilobytes stays under what readers take in every format;
// each entry says what changed, the newest with their lines, and links
// to the change's page for what it leaves out.
func TestFeedOfHugeChanges(t *testing.T) {
	s := newTestStore(t)
	var changes []db.Change
	for k := range DefaultFeedEntries {
		changes = append(changes, db.Change{URL: fmt.Sprintf("%sbig%d.html", artPage, k), Kind: "updated",
			Datetime: t0.Add(-time.Duration(k) * time.Minute), Title: fmt.Sprintf("Big %d", k),
			TextChange: db.TextChanged, Diff: hugeDiff(t, 2000, k)})
	}
	if len(changes[0].Diff) < 100_000 {
		t.Fatalf("a diff of %d bytes", len(changes[0].Diff))
	}
	s.save(t, s.art, t0, "", changes...)
	b := s.builder(t, Options{})
	spec, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.store.FeedChanges(t.Context(), db.Scope{CollectionID: s.art.ID}, DefaultFeedEntries)
	if err != nil || len(stored) != DefaultFeedEntries {
		t.Fatalf("%d changes stored, %v", len(stored), err)
	}
	links := map[string]string{}
	for _, ch := range stored {
		links[ch.URL] = testBase + ChangePage(s.art, ch.ID)
	}
	for _, format := range []feeds.Format{feeds.Atom, feeds.RSS, feeds.JSON} {
		var buf bytes.Buffer
		if err := feeds.Write(&buf, build(t, b, spec, format, Page{PerPage: true}), format); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", format, buf.Len())
		if buf.Len() > maxFeedBytes {
			t.Errorf("%s: a feed of %d huge changes is %d bytes, over %d", format, DefaultFeedEntries, buf.Len(), maxFeedBytes)
		}
		f, err := gofeed.NewParser().Parse(&buf)
		if err != nil {
			t.Fatalf("gofeed %s: %v", format, err)
		}
		if len(f.Items) != DefaultFeedEntries {
			t.Fatalf("%s: %d entries", format, len(f.Items))
		}
		lines, brief, newest := 0, 0, ""
		for k, it := range f.Items {
			content := it.Content
			if content == "" {
				content = it.Description
			}
			if it.Link == CollectionHome(s.art) {
				continue // the collection's "now following" entry
			}
			if newest == "" {
				newest = content
			}
			// Past the document's budget an entry says the change in a
			// line, "Removed: … (and 198 more lines); Added: …"; before
			// it, it shows the lines themselves, marked.
			switch {
			case strings.Count(content, "(and 198 more lines)") == 2 && strings.Contains(content, "Removed: "):
				brief++
			case strings.Contains(content, "<del") && strings.Contains(content, "<ins"):
				lines++
			default:
				t.Errorf("%s: entry %d says neither what was removed and added nor how much: %.300q", format, k, content)
			}
			link := `<a href="` + links[it.Link] + `">The whole change, 400 changed lines</a>`
			if links[it.Link] == "" || !strings.Contains(content, link) {
				t.Errorf("%s: entry %d (%s) does not link to its change's page: %.200q…", format, k, it.Link, content[max(0, len(content)-300):])
			}
		}
		if lines == 0 || brief == 0 || !strings.Contains(newest, "<del") {
			t.Errorf("%s: %d entries show their lines (the newest among them: %v), %d the change in a line; want both", format, lines, strings.Contains(newest, "<del"), brief)
		}
	}
}
