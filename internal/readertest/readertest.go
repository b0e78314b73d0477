// Package readertest runs real feed readers for tests: newsboat, headless,
// reading a feed and saving each article as the text it shows.
package readertest

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// SkipWithout returns the path of the program name, or skips the test
// when it is not installed (fails it in CI, which installs it from the
// Debian package pkg).
func SkipWithout(t testing.TB, name, pkg string) string {
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

// Newsboat reads the feed at feedURL (a file:// URL) with newsboat and
// returns the n articles it shows, by title, as the text newsboat saves
// of each. "-x reload" reads the feed; then newsboat runs under
// script(1) and is sent the keys that open each article and save it,
// lines unwrapped, so that a line of the page is a line read.
func Newsboat(t testing.TB, feedURL string, n int) map[string]string {
	t.Helper()
	newsboat := SkipWithout(t, "newsboat", "newsboat")
	script := SkipWithout(t, "script", "bsdutils")
	dir := t.TempDir()
	saved := filepath.Join(dir, "saved")
	files := map[string]string{
		"urls":   feedURL + "\n",
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
	args := []string{newsboat, "-u", filepath.Join(dir, "urls"), "-c", filepath.Join(dir, "cache.db"), "-C", filepath.Join(dir, "config")}
	env := append(os.Environ(), "HOME="+dir, "TERM=xterm", "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	reload := exec.CommandContext(ctx, args[0], append(args[1:], "-x", "reload")...)
	reload.Env = env
	if out, err := reload.CombinedOutput(); err != nil {
		t.Fatalf("newsboat -x reload: %v\n%s", err, out)
	}

	cmd := exec.CommandContext(ctx, script, "-qec", shellQuote(args), "/dev/null")
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
	// Quit once every article is saved; closing the terminal's input
	// earlier would end newsboat before it read the keys.
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
	return texts
}

// shellQuote quotes args for sh -c.
func shellQuote(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}
