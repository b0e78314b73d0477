package feedbuild

import (
	"bytes"
	"context"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feeds"
	"tidings/internal/changetest"
	"tidings/internal/readertest"
)

// digestReaderFeed stores one harvest of the readers' site and builds
// its default feed, one entry a harvest, in format.
func digestReaderFeed(t *testing.T, format feeds.Format) []byte {
	t.Helper()
	s := newTestStore(t)
	s.save(t, s.art, t0.Add(-2*time.Hour), "")
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
	if err := feeds.Write(&buf, build(t, b, spec, format, Page{}), format); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// digestLines are what the default entry must say of each page: its
// removed side and its added side, labelled ("" for a side it has not).
var digestLines = map[string][2]string{
	"Winter cranes":     {"Removed: So far: 212.", "Added: So far: 340."},
	"Cats of the Month": {"Removed: Whiskers sleeps on the warm windowsill every afternoon. / Tabby naps. (and 1 more line)", "Added: Whiskers purrs on the sunny windowsill every afternoon. / Tabby naps all day. (and 1 more line)"},
	"Links":             {"Removed: The old guestbook is open.", "Added: A new gallery of tabbies opened."},
	"News":              {"", "Added: It turns ten this spring. / Fan art is welcome again."},
	"About":             {"Removed: I answer mail on Sundays.", ""},
}

// checkDigestText fails unless text, the default entry as a reader shows
// it, says of each page what was removed and what was added, labelled.
func checkDigestText(t *testing.T, reader, text string) {
	t.Helper()
	flat := changetest.Squash(text)
	for title, sides := range digestLines {
		for _, side := range sides {
			if side != "" && !strings.Contains(flat, changetest.Squash(side)) {
				t.Errorf("%s: the default entry lacks, for %s, %q:\n%s", reader, title, side, text)
			}
		}
	}
	if n := strings.Count(flat, "Removed:"); n != 4 {
		t.Errorf("%s: %d pages said to have lost lines, want 4:\n%s", reader, n, text)
	}
}

// TestDefaultEntryTellsAnEditFromAnAddition: the default feed's entry,
// one a harvest, says of each page what its text lost and what it gained,
// each labelled, in Atom, RSS and JSON Feed as gofeed reads them, as
// w3m shows the entry and as newsboat does.
func TestDefaultEntryTellsAnEditFromAnAddition(t *testing.T) {
	var atom []byte
	for _, format := range []feeds.Format{feeds.Atom, feeds.RSS, feeds.JSON} {
		doc := digestReaderFeed(t, format)
		if format == feeds.Atom {
			atom = doc
		}
		f := parsed(t, doc)
		found := false
		for _, it := range f.Items {
			if strings.Contains(it.Content, "Winter cranes") {
				found = true
				checkDigestText(t, format.String()+" (gofeed)", html.UnescapeString(it.Content))
			}
		}
		if !found {
			t.Errorf("%s: no entry names the harvest's pages", format)
		}
	}
	if w3m := readertest.SkipWithout(t, "w3m", "w3m"); w3m != "" {
		for _, it := range parsed(t, atom).Items {
			if !strings.Contains(it.Content, "Winter cranes") {
				continue
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			cmd := exec.CommandContext(ctx, w3m, "-dump", "-T", "text/html", "-I", "UTF-8", "-O", "UTF-8", "-cols", "1000")
			cmd.Stdin = strings.NewReader(it.Content)
			out, err := cmd.Output()
			cancel()
			if err != nil {
				t.Fatalf("w3m: %v", err)
			}
			checkDigestText(t, "w3m", string(out))
		}
	}
	file := filepath.Join(t.TempDir(), "feed.atom")
	if err := os.WriteFile(file, atom, 0o644); err != nil {
		t.Fatal(err)
	}
	n := len(parsed(t, atom).Items)
	texts := readertest.Newsboat(t, "file://"+file, n)
	shown := false
	for _, text := range texts {
		if strings.Contains(text, "Winter cranes") {
			shown = true
			checkDigestText(t, "newsboat", text)
		}
	}
	if !shown {
		t.Errorf("newsboat shows no entry naming the harvest's pages among %d", len(texts))
	}
}
