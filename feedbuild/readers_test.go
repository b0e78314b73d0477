package feedbuild

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/microcosm-cc/bluemonday"
	"github.com/mmcdole/gofeed"
	jsonfeed "github.com/mmcdole/gofeed/json"

	"tidings/db"
	"tidings/feeds"
	"tidings/internal/changetest"
	"tidings/internal/readertest"
)

// readerPage is one page of the readers' site: its text before and after,
// and the lines a reader must be told were removed and added. The
// sentences are all different, so a line marked wrongly cannot pass for
// another.
type readerPage struct {
	file, title, old, new string
	removed, added        []string
}

var readerPages = []readerPage{
	{"cranes.html", "Winter cranes",
		"Winter cranes\nSo far: 212.\nWe count them every morning.",
		"Winter cranes\nSo far: 340.\nWe count them every morning.",
		[]string{"So far: 212."}, []string{"So far: 340."}},
	{"cats.html", "Cats of the Month",
		"Cats of the Month\nWhiskers sleeps on the warm windowsill every afternoon.\nTabby naps.\nGinger hunts on the old porch at night.\nAdopt one today.",
		"Cats of the Month\nWhiskers purrs on the sunny windowsill every afternoon.\nTabby naps all day.\nGinger hunts on the porch at night.\nAdopt one today.",
		[]string{"Whiskers sleeps on the warm windowsill every afternoon.", "Tabby naps.", "Ginger hunts on the old porch at night."},
		[]string{"Whiskers purrs on the sunny windowsill every afternoon.", "Tabby naps all day.", "Ginger hunts on the porch at night."}},
	{"links.html", "Links",
		"Links\nA cat shrine\nThe old guestbook is open.\nDogs of the valley",
		"Links\nA cat shrine\nA new gallery of tabbies opened.\nDogs of the valley",
		[]string{"The old guestbook is open."}, []string{"A new gallery of tabbies opened."}},
	{"news.html", "News",
		"News\nThe shrine is quiet.",
		"News\nThe shrine is quiet.\nIt turns ten this spring.\nFan art is welcome again.",
		nil, []string{"It turns ten this spring.", "Fan art is welcome again."}},
	{"about.html", "About",
		"About\nI keep cats.\nI answer mail on Sundays.\nBye.",
		"About\nI keep cats.\nBye.",
		[]string{"I answer mail on Sundays."}, nil},
}

// unchangedLines are every line the pages kept: none may be marked.
func unchangedLines() []string {
	var out []string
	for _, p := range readerPages {
		for _, l := range strings.Split(p.old, "\n") {
			if slices.Contains(strings.Split(p.new, "\n"), l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// readerFeed stores one harvest of the readers' site and builds its
// per-page feed in format.
func readerFeed(t *testing.T, format feeds.Format) []byte {
	t.Helper()
	s := newTestStore(t)
	s.save(t, s.art, t0.Add(-2*time.Hour), "") // "now following": first
	var changes []db.Change
	for i, p := range readerPages {
		changes = append(changes, db.Change{URL: artPage + p.file, Kind: "updated", Datetime: t0.Add(-time.Duration(i+1) * time.Minute),
			Title: p.title, TextChange: db.TextChanged, Diff: diffJSON(t, p.old, p.new)})
	}
	s.save(t, s.art, t0, "", changes...)
	b := s.builder(t, Options{})
	spec, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := feeds.Write(&buf, build(t, b, spec, format, Page{PerPage: true}), format); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkRead fails the test unless the text a reader shows of each page's
// entry, by entry title, marks exactly the lines removed and added, and
// no other.
func checkRead(t *testing.T, reader string, texts map[string]string) {
	t.Helper()
	squash := func(in []string) []string {
		out := []string{}
		for _, s := range in {
			out = append(out, changetest.Squash(s))
		}
		slices.Sort(out)
		return out
	}
	for _, p := range readerPages {
		text, ok := texts["Updated: "+p.title]
		if !ok {
			t.Errorf("%s: no entry %q among %d", reader, "Updated: "+p.title, len(texts))
			continue
		}
		got := changetest.ReadMarked(text)
		if !slices.Equal(squash(got.Removed), squash(p.removed)) || !slices.Equal(squash(got.Added), squash(p.added)) {
			t.Errorf("%s: %s reads as removing %q and adding %q; want %q and %q\n%s",
				reader, p.title, got.Removed, got.Added, p.removed, p.added, text)
		}
		for _, l := range unchangedLines() {
			if slices.Contains(squash(append(got.Removed, got.Added...)), changetest.Squash(l)) {
				t.Errorf("%s: %s marks the unchanged %q", reader, p.title, l)
			}
		}
	}
}

// parsed reads a feed with gofeed, as Go readers do.
func parsed(t *testing.T, doc []byte) *gofeed.Feed {
	t.Helper()
	f, err := gofeed.NewParser().Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("gofeed: %v\n%s", err, doc)
	}
	return f
}

// TestDiffsSurviveSanitizers: readers sanitize what they show. Whether
// they keep <ins> and <del> but drop styles (UGC), drop those too, or
// strip every tag (strict), the words left say which text was removed and
// which added, in every format, in RSS's description and in JSON Feed's
// content_text.
func TestDiffsSurviveSanitizers(t *testing.T) {
	noDiffTags := bluemonday.NewPolicy()
	noDiffTags.AllowElements("p", "ul", "li", "a", "time", "code")
	strict := bluemonday.StrictPolicy()
	policies := map[string]*bluemonday.Policy{"UGC": bluemonday.UGCPolicy(), "no <ins>/<del>": noDiffTags, "strict": strict}
	// A text reader lays out what the sanitizer left; here, line by line.
	asText := func(p *bluemonday.Policy, content string) string {
		return html.UnescapeString(strict.Sanitize(p.Sanitize(content)))
	}
	for _, format := range feeds.Formats {
		f := parsed(t, readerFeed(t, format))
		for name, p := range policies {
			texts := map[string]string{}
			for _, it := range f.Items {
				kept := p.Sanitize(it.Content)
				if strings.Contains(kept, "style=") {
					t.Errorf("%s kept a style: %s", name, kept)
				}
				texts[it.Title] = asText(p, it.Content)
			}
			checkRead(t, format.String()+" through "+name, texts)
		}
		if format == feeds.RSS {
			texts := map[string]string{}
			for _, it := range f.Items {
				texts[it.Title] = asText(strict, it.Description)
			}
			checkRead(t, "RSS description", texts)
		}
	}

	doc, err := (&jsonfeed.Parser{}).Parse(bytes.NewReader(readerFeed(t, feeds.JSON)))
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, it := range doc.Items {
		texts[it.Title] = it.ContentText
	}
	checkRead(t, "JSON Feed content_text", texts)
}

// TestDiffsInW3m: w3m -dump, the text a terminal browser shows, says what
// was removed and added, whether w3m marks <del> and <ins> its own way
// ("[DEL:…:DEL]", the default) or shows them as plain text.
func TestDiffsInW3m(t *testing.T) {
	w3m := readertest.SkipWithout(t, "w3m", "w3m")
	f := parsed(t, readerFeed(t, feeds.Atom))
	w3mMarks := strings.NewReplacer("[DEL:", "", ":DEL]", "", "[INS:", "", ":INS]", "")
	for _, mode := range []string{"1", "2"} {
		texts := map[string]string{}
		for _, it := range f.Items {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			cmd := exec.CommandContext(ctx, w3m, "-dump", "-T", "text/html", "-I", "UTF-8", "-O", "UTF-8", "-cols", "1000", "-o", "display_ins_del="+mode)
			cmd.Stdin = strings.NewReader(it.Content)
			out, err := cmd.Output()
			cancel()
			if err != nil {
				t.Fatalf("w3m: %v", err)
			}
			texts[it.Title] = w3mMarks.Replace(string(out))
		}
		checkRead(t, "w3m -dump -o display_ins_del="+mode, texts)
	}
	if testing.Verbose() {
		t.Logf("w3m -dump shows:\n%s", w3mDump(t, w3m, f, "Updated: Cats of the Month"))
	}
}

func w3mDump(t *testing.T, w3m string, f *gofeed.Feed, title string) string {
	for _, it := range f.Items {
		if it.Title == title {
			cmd := exec.Command(w3m, "-dump", "-T", "text/html", "-I", "UTF-8", "-O", "UTF-8")
			cmd.Stdin = strings.NewReader(it.Content)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}
	}
	return ""
}

// TestDiffsInNewsboat reads the feed with newsboat, a terminal feed
// reader, and keeps each entry as newsboat shows it.
//
// newsboat has no command that prints an article, so it runs as a person
// would, headless: "newsboat -x reload" fetches the feed (a file:// URL,
// no network), then newsboat runs under script(1), which gives it a
// terminal, and is sent the keys that open the feed (Enter), open the
// first article (Enter), save each article to save-path as its text
// ("s", Enter) and go to the next unread one ("n"), then quit ("q").
// The saved files are newsboat's own rendering: a header, a blank line,
// the text. Tried by hand:
//
//	newsboat -u urls -c cache.db -C config -x reload
//	script -qec 'newsboat -u urls -c cache.db -C config' /dev/null
func TestDiffsInNewsboat(t *testing.T) {
	dir := t.TempDir()
	feed := filepath.Join(dir, "feed.atom")
	doc := readerFeed(t, feeds.Atom)
	if err := os.WriteFile(feed, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	n := len(parsed(t, doc).Items)
	texts := readertest.Newsboat(t, "file://"+feed, n)
	for title, text := range texts {
		if strings.Contains(title, "cranes") || strings.Contains(title, "Links") {
			t.Logf("newsboat shows %s:\n%s", title, text)
		}
	}
	if len(texts) != n {
		t.Fatalf("newsboat saved %d of %d articles", len(texts), n)
	}
	checkRead(t, "newsboat", texts)
}

// TestNewsboatKeepsEveryFeedWhole subscribes newsboat to a collection's
// feed, its site's feed and a person's feed of everything, which hold the
// same changes: newsboat keys articles by id, so each feed keeps all its
// entries only when their ids differ.
func TestNewsboatKeepsEveryFeedWhole(t *testing.T) {
	newsboat := readertest.SkipWithout(t, "newsboat", "newsboat")
	s := newTestStore(t)
	u, err := s.store.CreateUser(t.Context(), "ann", "x", "anntoken", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Follow(t.Context(), u.ID, s.site.ID); err != nil {
		t.Fatal(err)
	}
	s.save(t, s.art, t0.Add(-2*time.Hour), "")
	var changes []db.Change
	for i, p := range readerPages {
		changes = append(changes, db.Change{URL: artPage + p.file, Kind: "updated", Datetime: t0.Add(-time.Duration(i+1) * time.Minute), Title: p.title})
	}
	s.save(t, s.art, t0, "", changes...)
	b := s.builder(t, Options{})
	dir := t.TempDir()
	var urls strings.Builder
	want := 0
	for name, spec := range map[string]func() (*Spec, error){
		"collection": func() (*Spec, error) { return b.CollectionSpec(t.Context(), s.art.ID) },
		"site":       func() (*Spec, error) { return b.SiteSpec(t.Context(), s.site.ID) },
		"user":       func() (*Spec, error) { return b.UserSpec(t.Context(), "anntoken") },
	} {
		sp, err := spec()
		if err != nil {
			t.Fatal(err)
		}
		for _, perPage := range []bool{false, true} {
			f := build(t, b, sp, feeds.Atom, Page{PerPage: perPage})
			want += len(f.Entries)
			var buf bytes.Buffer
			if err := feeds.WriteAtom(&buf, f); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, fmt.Sprintf("%s-%v.atom", name, perPage))
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			urls.WriteString("file://" + path + "\n")
		}
	}
	// Both modes of one feed hold the collection's first harvest's entry
	// under one id, on purpose: a person who reads both sees it once.
	want -= 3
	if err := os.WriteFile(filepath.Join(dir, "urls"), []byte(urls.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-u", filepath.Join(dir, "urls"), "-c", filepath.Join(dir, "cache.db"), "-C", filepath.Join(dir, "config")}
	if err := os.WriteFile(filepath.Join(dir, "config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	run := func(x string) string {
		cmd := exec.CommandContext(ctx, newsboat, append(args, "-x", x)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("newsboat -x %s: %v\n%s", x, err, out)
		}
		return string(out)
	}
	run("reload")
	got := run("print-unread")
	if want := fmt.Sprintf("%d unread articles", want); !strings.Contains(got, want) {
		t.Errorf("newsboat, subscribed to six feeds: %q, want %q", strings.TrimSpace(got), want)
	}
}
