package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tidings/rsync"
)

// publishSite is a small static site in a temporary folder outside any git
// work tree.
func publishSite(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, map[string]string{"index.html": "<title>Ann</title>home", "shrine/index.html": "shrine", "shrine/a.html": "a"})
	return dir
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		name := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// parseSiteDoc reads a generated document with tidings' own parser.
func parseSiteDoc(t *testing.T, dir, rel, docURL string) *rsync.Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := rsync.Parse(bytes.NewReader(data), docURL)
	if err != nil || len(doc.Warnings) > 0 {
		t.Fatalf("%s: %v %q", rel, err, doc.Warnings)
	}
	return doc
}

func TestPublishCommand(t *testing.T) {
	dir := publishSite(t)
	var env map[string]string
	r := tidings(t, env, "publish", dir, "--base-url", "https://ann.example.org", "--collection", "shrine/", "--datetime", "now")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "shrine/ (https://ann.example.org/shrine/): 2 page(s); history begins now") ||
		!strings.Contains(r.stdout, "Wrote 7 file(s) in "+dir) {
		t.Fatalf("first run printed:\n%s", r.stdout)
	}
	sd := parseSiteDoc(t, dir, ".well-known/resourcesync", "https://ann.example.org/.well-known/resourcesync")
	if len(sd.Entries) != 1 || sd.Entries[0].Loc != "https://ann.example.org/resourcesync/shrine/capabilitylist.xml" {
		t.Fatalf("source description entries %+v", sd.Entries)
	}

	writeFiles(t, dir, map[string]string{"shrine/a.html": "a, edited", "shrine/b.html": "b"})
	// Flags may come before the folder too.
	r = tidings(t, env, "publish", "--base-url", "https://ann.example.org/", "--collection", "shrine", "--datetime", "now", dir)
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "1 created, 1 updated, 0 deleted") {
		t.Fatalf("second run printed:\n%s", r.stdout)
	}
	cl := parseSiteDoc(t, dir, "resourcesync/shrine/changelist.xml", "https://ann.example.org/resourcesync/shrine/changelist.xml")
	if len(cl.Entries) != 2 {
		t.Fatalf("change list: %+v", cl.Entries)
	}

	r = tidings(t, env, "publish", dir, "--base-url", "https://ann.example.org/", "--collection", "shrine", "--datetime", "now")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "Nothing changed in "+dir+": no file rewritten.") {
		t.Fatalf("third run printed:\n%s", r.stdout)
	}
}

func TestPublishSettingsFromTheEnvironment(t *testing.T) {
	dir := publishSite(t)
	env := map[string]string{
		// tidings' own address is not the site's.
		"TIDINGS_BASE_URL":         "http://tidings.test/",
		"TIDINGS_PUBLISH_BASE_URL": "https://ann.example.org/",
		"TIDINGS_PUBLISH_FOLDER":   "changes",
		"TIDINGS_PUBLISH_DATETIME": "now",
	}
	mustSucceed(t, tidings(t, env, "publish", dir))
	cap := parseSiteDoc(t, dir, "changes/capabilitylist.xml", "https://ann.example.org/changes/capabilitylist.xml")
	if cap.Link("describes") != "https://ann.example.org/" {
		t.Fatalf("capability list describes %q", cap.Link("describes"))
	}
	// A flag wins over the environment.
	mustSucceed(t, tidings(t, env, "publish", dir, "--folder", "other"))
	if _, err := os.Stat(filepath.Join(dir, "other", "capabilitylist.xml")); err != nil {
		t.Fatal(err)
	}
}

func TestPublishRefusesClearly(t *testing.T) {
	dir := publishSite(t)
	// So that --datetime git is refused whatever folder holds the test's.
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	var env map[string]string
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"publish"}, "publish needs the site's folder"},
		{[]string{"publish", dir}, "publish needs --base-url"},
		{[]string{"publish", dir, dir, "--base-url", "https://a.example/"}, "publish takes one folder, not 2"},
		{[]string{"publish", filepath.Join(dir, "nope"), "--base-url", "https://a.example/"}, "does not exist"},
		{[]string{"publish", dir, "--base-url", "a.example"}, `--base-url "a.example" is not an absolute http or https URL`},
		{[]string{"publish", dir, "--base-url", "https://a.example/", "--collection", "gallery/"}, "the collection gallery/ is not a folder in " + dir},
		{[]string{"publish", dir, "--base-url", "https://a.example/", "--datetime", "mtime"}, "--datetime must be git or now"},
		{[]string{"publish", dir, "--base-url", "https://a.example/", "--history", "a month"}, `"a month" is not a period`},
		{[]string{"publish", dir, "--base-url", "https://a.example/", "--datetime", "git"}, "is not inside a git work tree"},
	}
	for _, tt := range tests {
		r := tidings(t, env, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "resourcesync")); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote files: %v", err)
	}
}

func TestPublishHelpListsOnlyItsFlags(t *testing.T) {
	r := tidings(t, nil, "publish", "--help")
	if r.code != 0 || !strings.HasPrefix(r.stderr, "Usage: tidings publish DIR --base-url URL") {
		t.Fatalf("exit %d, help:\n%s", r.code, r.stderr)
	}
	got := regexp.MustCompile(`(?m)^  --([a-z-]+)`).FindAllStringSubmatch(r.stderr, -1)
	var names []string
	for _, m := range got {
		names = append(names, m[1])
	}
	if strings.Join(names, " ") != "allow-private-addresses base-url collection datetime feed-entries folder history include indexnow-endpoint indexnow-key link-feed note websub-hub" {
		t.Errorf("flags listed: %q", names)
	}
	for _, want := range []string{"--base-url (TIDINGS_PUBLISH_BASE_URL)", "--folder (TIDINGS_PUBLISH_FOLDER)", "(default resourcesync)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestPublishCommandRefusesALinkedOutput: the output folder a link to a
// folder outside the site: refused, the link named, nothing written there.
func TestPublishCommandRefusesALinkedOutput(t *testing.T) {
	dir := publishSite(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "resourcesync")); err != nil {
		t.Fatal(err)
	}
	r := tidings(t, nil, "publish", dir, "--base-url", "https://ann.example.org", "--datetime", "now")
	if want := filepath.Join(dir, "resourcesync") + " is a symbolic link"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit code %d, want 1 with %q\nstderr:\n%s", r.code, want, r.stderr)
	}
	if names, err := os.ReadDir(outside); err != nil || len(names) != 0 {
		t.Errorf("written outside the site: %v %v", names, err)
	}
}
