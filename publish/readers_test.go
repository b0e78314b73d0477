package publish_test

import (
	"context"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/publish"
)

func skipWithout(t *testing.T, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := name + " not found: reader test not run (apt-get install -y " + pkg + ")"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestChangeFeedInNewsboat reads the fixture's change feed with newsboat,
// a terminal feed reader, run headless as feedbuild's reader tests run
// it: "-x reload" reads the feed from a file:// URL, then newsboat runs
// under script(1) and is sent the keys that open each article and save
// it as text. The updated page's article says, in words, which lines
// were removed and which added; the created page's shows its opening.
func TestChangeFeedInNewsboat(t *testing.T) {
	newsboat := skipWithout(t, "newsboat", "newsboat")
	script := skipWithout(t, "script", "bsdutils")
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

	dir := t.TempDir()
	saved := filepath.Join(dir, "saved")
	files := map[string]string{
		"urls":   "file://" + filepath.Join(site, "resourcesync", "changes.atom") + "\n",
		"config": "save-path \"" + saved + "\"\ntext-width 10000\nconfirm-exit no\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(saved, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"-u", filepath.Join(dir, "urls"), "-c", filepath.Join(dir, "cache.db"), "-C", filepath.Join(dir, "config")}
	env := append(os.Environ(), "HOME="+dir, "TERM=xterm", "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	reload := exec.CommandContext(ctx, newsboat, append(args, "-x", "reload")...)
	reload.Env = env
	if out, err := reload.CombinedOutput(); err != nil {
		t.Fatalf("newsboat -x reload: %v\n%s", err, out)
	}
	const n = 3
	quoted := []string{}
	for _, a := range append([]string{newsboat}, args...) {
		quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	cmd := exec.CommandContext(ctx, script, "-qec", strings.Join(quoted, " "), "/dev/null")
	cmd.Env = env
	cmd.Stdout = io.Discard
	keys, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(keys, "\r\r"+strings.Repeat("s\rn", n))
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if entries, _ := os.ReadDir(saved); len(entries) >= n {
			break
		}
	}
	io.WriteString(keys, "qqq")
	keys.Close()
	if err := cmd.Wait(); err != nil {
		t.Logf("newsboat under script: %v", err)
	}

	texts := map[string]string{}
	entries, _ := os.ReadDir(saved)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(saved, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		head, body, _ := strings.Cut(string(b), "\n \n")
		for _, l := range strings.Split(head, "\n") {
			if title, ok := strings.CutPrefix(l, "Title: "); ok {
				texts[title] = body
			}
		}
	}
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
