package publish_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmcdole/gofeed"

	"tidings/internal/changetest"
	"tidings/publish"
	"tidings/rsync"
)

// page is an HTML page of the feed's fixture site: a title, an optional
// change-note, one paragraph a line.
func page(title, note string, lines ...string) string {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html><head><title>" + title + "</title>\n")
	if note != "" {
		b.WriteString(`<meta name="change-note" content="` + note + `">` + "\n")
	}
	b.WriteString("</head><body><main>\n<h1>" + title + "</h1>\n")
	for _, l := range lines {
		b.WriteString("<p>" + l + "</p>\n")
	}
	b.WriteString("</main></body></html>\n")
	return b.String()
}

// feedSite is the fixture: a shrine's home, three pages and a subfolder.
func feedSite() map[string]string {
	return map[string]string{
		"index.html":       page("Ann's cats", "", "Welcome to the cat shrine.", "Pages about cats, old and new."),
		"cats.html":        page("Cats of the Month", "", "Whiskers sleeps on the warm windowsill every afternoon.", "Tabby naps.", "Ginger hunts on the old porch at night.", "Adopt one today."),
		"links.html":       page("Links", "", "A cat shrine", "The old guestbook is open.", "Dogs of the valley"),
		"about.html":       page("About", "", "I keep cats.", "I answer mail on Sundays.", "Bye."),
		"gallery/a.html":   page("Gallery A", "", "A painting of Whiskers."),
		"gallery/b.html":   page("Gallery B", "", "A drawing of Tabby."),
		"style/notes.html": page("Style", "", "Plain."),
	}
}

// jsonFeed is a change feed's JSON Feed, read as it is written.
type jsonFeed struct {
	Title string `json:"title"`
	Hubs  []struct {
		URL string `json:"url"`
	} `json:"hubs"`
	Items []struct {
		ID          string `json:"id"`
		URL         string `json:"url"`
		Title       string `json:"title"`
		ContentText string `json:"content_text"`
		Summary     string `json:"summary"`
	} `json:"items"`
}

func readJSONFeed(t *testing.T, dir, rel string) jsonFeed {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	var f jsonFeed
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return f
}

// readAtom parses a change feed with gofeed, as Go readers do.
func readAtom(t *testing.T, dir, rel string) *gofeed.Feed {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := gofeed.NewParser().Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if f.FeedType != "atom" {
		t.Fatalf("%s is %s, not Atom", rel, f.FeedType)
	}
	return f
}

// notesOf reads the change list's notes by entry URL, as any namespace
// aware reader would, by the namespace's URI.
func notesOf(t *testing.T, dir, rel string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		URLs []struct {
			Loc string `xml:"loc"`
			MD  struct {
				Attrs []xml.Attr `xml:",any,attr"`
			} `xml:"http://www.openarchives.org/rs/terms/ md"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, u := range doc.URLs {
		for _, a := range u.MD.Attrs {
			if a.Name.Space == rsync.NSNote && a.Name.Local == "note" {
				out[u.Loc] = a.Value
			}
		}
	}
	return out
}

func marked(text string) (removed, added []string) {
	m := changetest.ReadMarked(text)
	for _, l := range m.Removed {
		removed = append(removed, changetest.Squash(l))
	}
	for _, l := range m.Added {
		added = append(added, changetest.Squash(l))
	}
	return removed, added
}

func squashAll(ls ...string) []string {
	var out []string
	for _, l := range ls {
		out = append(out, changetest.Squash(l))
	}
	return out
}

// TestChangeFeed: a run's changes become one entry each in the change
// feed, with the words removed and added, created and deleted pages, and
// the notes of the page, of the run and none; a run without change
// rewrites nothing; the feed keeps its newest entries.
func TestChangeFeed(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, feedSite())
	o := publish.Options{Dir: dir}
	res := publishAt(t, o, "2026-03-01T10:00:00Z")
	if c := res.Collections[0]; c.Feed != base+"resourcesync/changes.atom" || c.FeedTitle != "Changes to Ann's cats" {
		t.Fatalf("feed %q titled %q", c.Feed, c.FeedTitle)
	}
	if f := readAtom(t, dir, "resourcesync/changes.atom"); len(f.Items) != 0 || f.Title != "Changes to Ann's cats" {
		t.Fatalf("first run's feed %q has %d entries", f.Title, len(f.Items))
	}

	writeSite(t, dir, map[string]string{
		"cats.html": page("Cats of the Month", "Whiskers moved to the sunny side", "Whiskers purrs on the sunny windowsill every afternoon.", "Tabby naps all day.", "Ginger hunts on the porch at night.", "Adopt one today."),
		"news.html": page("News", "", "The shrine turns ten this spring.", "Fan art is welcome again."),
	})
	os.Remove(filepath.Join(dir, "about.html"))
	o.Note = "Spring cleaning"
	publishAt(t, o, "2026-03-02T10:00:00Z")

	f := readJSONFeed(t, dir, "resourcesync/changes.json")
	byTitle := map[string]int{}
	for i, it := range f.Items {
		byTitle[it.Title] = i
	}
	if len(f.Items) != 3 {
		t.Fatalf("feed entries %q, want 3", titleKeys(byTitle))
	}
	cats := f.Items[byTitle["Updated: Cats of the Month"]]
	removed, added := marked(cats.ContentText)
	if want := squashAll("Whiskers sleeps on the warm windowsill every afternoon.", "Tabby naps.", "Ginger hunts on the old porch at night."); !slices.Equal(removed, want) {
		t.Errorf("cats reads as removing %q, want %q\n%s", removed, want, cats.ContentText)
	}
	if want := squashAll("Whiskers purrs on the sunny windowsill every afternoon.", "Tabby naps all day.", "Ginger hunts on the porch at night."); !slices.Equal(added, want) {
		t.Errorf("cats reads as adding %q, want %q\n%s", added, want, cats.ContentText)
	}
	news := f.Items[byTitle["Created: News"]]
	if !strings.Contains(news.ContentText, "The shrine turns ten this spring.") || news.URL != base+"news.html" {
		t.Errorf("created entry at %s:\n%s", news.URL, news.ContentText)
	}
	about, ok := byTitle["Deleted: About"]
	if !ok || f.Items[about].URL != base {
		t.Errorf("deleted entry: %v %+v", ok, f.Items)
	}
	// The page's own note wins over the run's.
	wantNotes := map[string]string{base + "cats.html": "Whiskers moved to the sunny side", base + "news.html": "Spring cleaning", base + "about.html": "Spring cleaning"}
	for _, it := range f.Items {
		u := it.URL
		if it.Title == "Deleted: About" {
			u = base + "about.html"
		}
		if it.Summary != wantNotes[u] || !strings.Contains(it.ContentText, wantNotes[u]) {
			t.Errorf("%s: note %q, want %q", it.Title, it.Summary, wantNotes[u])
		}
	}
	if got := notesOf(t, dir, "resourcesync/changelist.xml"); !mapsEqual(got, wantNotes) {
		t.Errorf("change list notes %q, want %q", got, wantNotes)
	}

	before := snap(t, dir)
	res = publishAt(t, o, "2026-03-03T10:00:00Z")
	if len(res.Written) != 0 {
		t.Errorf("a run without change wrote %q", res.Written)
	}
	if after := snap(t, dir); !snapEqual(before, after) {
		t.Error("a run without change changed the folder")
	}

	// A note left in a page says nothing of its next change.
	writeSite(t, dir, map[string]string{"cats.html": page("Cats of the Month", "Whiskers moved to the sunny side", "Whiskers purrs on the sunny windowsill every afternoon.", "Adopt one today.")})
	o.Note = ""
	publishAt(t, o, "2026-03-04T10:00:00Z")
	f = readJSONFeed(t, dir, "resourcesync/changes.json")
	if len(f.Items) != 4 || f.Items[0].Title != "Updated: Cats of the Month" || f.Items[0].Summary != "" {
		t.Fatalf("after a fourth run: %+v", f.Items)
	}
	if removed, added := marked(f.Items[0].ContentText); len(added) != 0 || !slices.Equal(removed, squashAll("Tabby naps all day.", "Ginger hunts on the porch at night.")) {
		t.Errorf("second change of cats reads as removing %q, adding %q", removed, added)
	}
	if got := notesOf(t, dir, "resourcesync/changelist.xml"); !mapsEqual(got, wantNotes) {
		t.Errorf("the notes of earlier changes are not kept: %q", got)
	}
	// The change list as tidings reads it still has every change.
	if cl := readDoc(t, dir, "resourcesync/changelist.xml"); len(cl.Entries) != 4 {
		t.Errorf("change list entries %+v", changesOf(cl))
	}

	o.FeedEntries = 2
	writeSite(t, dir, map[string]string{"links.html": page("Links", "", "A cat shrine", "A new gallery of tabbies opened.", "Dogs of the valley")})
	publishAt(t, o, "2026-03-05T10:00:00Z")
	f = readJSONFeed(t, dir, "resourcesync/changes.json")
	if len(f.Items) != 2 || f.Items[0].Title != "Updated: Links" || f.Items[1].Title != "Updated: Cats of the Month" {
		t.Errorf("a feed of 2 entries holds %+v", f.Items)
	}
	if a := readAtom(t, dir, "resourcesync/changes.atom"); len(a.Items) != 2 || a.Items[0].Title != "Updated: Links" {
		t.Errorf("the Atom feed holds %d entries", len(a.Items))
	}
}

// TestChangeFeedPerCollection: each --collection has its own feed, of its
// own pages only.
func TestChangeFeedPerCollection(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, feedSite())
	o := publish.Options{Dir: dir, Collections: []string{"", "gallery"}}
	publishAt(t, o, "2026-03-01T10:00:00Z")
	writeSite(t, dir, map[string]string{"gallery/a.html": page("Gallery A", "", "A painting of Whiskers, framed.")})
	res := publishAt(t, o, "2026-03-02T10:00:00Z")
	if res.Collections[1].Feed != base+"resourcesync/gallery/changes.atom" {
		t.Fatalf("gallery's feed is %q", res.Collections[1].Feed)
	}
	whole := readAtom(t, dir, "resourcesync/changes.atom")
	gallery := readAtom(t, dir, "resourcesync/gallery/changes.atom")
	if len(gallery.Items) != 1 || gallery.Items[0].Title != "Updated: Gallery A" || gallery.Link != base+"gallery/" {
		t.Errorf("gallery's feed at %s: %d entries", gallery.Link, len(gallery.Items))
	}
	if len(whole.Items) != 1 || whole.Link != base {
		t.Errorf("the whole site's feed: %d entries", len(whole.Items))
	}
	if gallery.FeedLink == whole.FeedLink {
		t.Errorf("both feeds are at %s", gallery.FeedLink)
	}
}

// TestLinkFeedInsertsTheLineOnce: --link-feed puts the feed's link in the
// collection's index page once; the page's change is published.
func TestLinkFeedInsertsTheLineOnce(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, feedSite())
	o := publish.Options{Dir: dir, LinkFeed: true}
	res := publishAt(t, o, "2026-03-01T10:00:00Z")
	c := res.Collections[0]
	want := `<link rel="alternate" type="application/atom+xml" title="Changes to Ann&#39;s cats" href="` + base + `resourcesync/changes.atom">`
	if c.FeedLink() != want || !c.Linked {
		t.Fatalf("linked %v, line %s", c.Linked, c.FeedLink())
	}
	home, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if strings.Count(string(home), want) != 1 || !strings.Contains(string(home), want+"\n</head>") {
		t.Fatalf("index.html:\n%s", home)
	}
	res = publishAt(t, o, "2026-03-02T10:00:00Z")
	home2, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if !res.Collections[0].Linked || !bytes.Equal(home, home2) || len(res.Written) != 0 {
		t.Errorf("a second run linked again (%v) or wrote %q", res.Collections[0].Linked, res.Written)
	}
	rl := readDoc(t, dir, "resourcesync/resourcelist.xml")
	for _, e := range rl.Entries {
		if e.Loc == base && e.Hash != sha(string(home)) {
			t.Errorf("the resource list has the page without its link")
		}
	}
}

func titleKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func snapEqual(a, b snapshot) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
