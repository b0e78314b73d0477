package publish_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tidings/internal/readertest"
	"tidings/publish"
)

// TestChangeFeedInNewsboat reads the fixture's change feed with newsboat,
// a terminal feed reader, run headless as feedbuild's reader tests run
// it: "-x reload" reads the feed from a file:// URL, then newsboat runs
// under script(1) and is sent the keys that open each article and save
// it as text. The updated page's article says, in words, which lines
// were removed and which added; the created page's shows its opening.
func TestChangeFeedInNewsboat(t *testing.T) {
	site := t.TempDir()
	writeSite(t, site, feedSite())
	o := publish.Options{Dir: site}
	publishAt(t, o, "2026-03-01T10:00:00Z")
	writeSite(t, site, map[string]string{
		"cats.html":  page("Cats of the Month", "", "Whiskers purrs on the sunny windowsill every afternoon.", "Tabby naps all day.", "Ginger hunts on the porch at night.", "Adopt one today."),
		"news.html":  page("News", "", "The shrine turns ten this spring."),
		"links.html": page("Links", "", "A cat shrine", "A new gallery of tabbies opened.", "Dogs of the valley"),
	})
	publishAt(t, o, "2026-03-02T10:00:00Z")

	texts := readertest.Newsboat(t, "file://"+filepath.Join(site, "resourcesync", "changes.atom"), 3)
	cats, ok := texts["Updated: Cats of the Month"]
	if !ok {
		t.Fatalf("newsboat saved %d articles: %q", len(texts), slices.Collect(maps.Keys(texts)))
	}
	t.Logf("newsboat shows the updated page:\n%s", cats)
	removed, added := marked(cats)
	if want := squashAll("Whiskers sleeps on the warm windowsill every afternoon.", "Tabby naps.", "Ginger hunts on the old porch at night."); !slices.Equal(removed, want) {
		t.Errorf("newsboat reads as removed %q, want %q", removed, want)
	}
	if want := squashAll("Whiskers purrs on the sunny windowsill every afternoon.", "Tabby naps all day.", "Ginger hunts on the porch at night."); !slices.Equal(added, want) {
		t.Errorf("newsboat reads as added %q, want %q", added, want)
	}
	removed, added = marked(texts["Updated: Links"])
	if !slices.Equal(removed, squashAll("The old guestbook is open.")) || !slices.Equal(added, squashAll("A new gallery of tabbies opened.")) {
		t.Errorf("newsboat shows the links page as removing %q, adding %q:\n%s", removed, added, texts["Updated: Links"])
	}
	if news := texts["Created: News"]; !strings.Contains(news, "The shrine turns ten this spring.") {
		t.Errorf("newsboat shows the created page as:\n%s", news)
	}
}
