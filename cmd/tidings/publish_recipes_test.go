package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"tidings/rsync"
)

// siteOwnersPage is the documentation page that holds the publisher
// recipes, from the module's root.
const siteOwnersPage = "docs/site-owners.md"

// docSection returns the section of the documentation page (a path from
// the module's root) under the heading, up to the next heading of its
// level.
func docSection(t *testing.T, page, heading string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no %q", page, heading)
	}
	s = s[i+1+len(heading):]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

// codeBlock is a fenced block of a documentation page.
type codeBlock struct{ lang, text string }

func codeBlocks(section string) []codeBlock {
	var out []codeBlock
	for _, m := range regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```").FindAllStringSubmatch(section, -1) {
		out = append(out, codeBlock{m[1], m[2]})
	}
	return out
}

// recipeStep is a step of the GitHub Actions recipe for site owners.
type recipeStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

// actionsRunner runs the run: steps of a workflow as GitHub's runner
// would: with bash -e in the checkout, RUNNER_TEMP, and the folders steps
// add to GITHUB_PATH on PATH for the steps after.
type actionsRunner struct {
	t                  *testing.T
	workspace, tempDir string
	pathFile           string
	path               string
}

func (r *actionsRunner) run(script string) string {
	r.t.Helper()
	if data, err := os.ReadFile(r.pathFile); err == nil {
		for _, line := range strings.Fields(string(data)) {
			r.path = line + string(os.PathListSeparator) + r.path
		}
		os.WriteFile(r.pathFile, nil, 0o644)
	}
	cmd := exec.CommandContext(r.t.Context(), "bash", "-e", "-c", script)
	cmd.Dir = r.workspace
	cmd.Env = append(cleanEnv(), "PATH="+r.path, "RUNNER_TEMP="+r.tempDir, "GITHUB_PATH="+r.pathFile,
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(r.workspace))
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// gitIn runs git in dir, committing at date when one is given.
func gitIn(t *testing.T, dir, date string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ann", "GIT_AUTHOR_EMAIL=ann@example.org", "GIT_COMMITTER_NAME=Ann", "GIT_COMMITTER_EMAIL=ann@example.org")
	if date != "" {
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func readSiteDoc(t *testing.T, site, rel, base string) *rsync.Document {
	t.Helper()
	return parseSiteDoc(t, site, rel, base+rel)
}

func changeLines(doc *rsync.Document) []string {
	var out []string
	for _, e := range doc.Entries {
		out = append(out, fmt.Sprintf("%s %s %s", e.Change, e.Loc, e.Datetime.UTC().Format(time.RFC3339)))
	}
	return out
}

// The recipes of the page for site owners are run as written against
// temporary folders: the GitHub Actions steps that run commands (building
// tidings from its source, then publishing) in a git checkout with
// history, and the Neocities command up to the upload.
func TestPublishRecipesForSiteOwners(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	section := docSection(t, siteOwnersPage, "## Publish your site's changes")
	var yamlBlock, neocities, robots string
	for _, b := range codeBlocks(section) {
		switch {
		case b.lang == "yaml":
			yamlBlock = b.text
		case b.lang == "sh" && strings.Contains(b.text, "neocities push"):
			neocities = strings.TrimSpace(b.text)
		case b.lang == "" && strings.HasPrefix(b.text, "Sitemap:"):
			robots = strings.TrimSpace(b.text)
		}
	}
	var recipe struct {
		Steps []recipeStep `yaml:"steps"`
	}
	if err := yaml.Unmarshal([]byte(yamlBlock), &recipe); err != nil || len(recipe.Steps) == 0 {
		t.Fatalf("the GitHub Actions recipe does not parse: %v\n%s", err, yamlBlock)
	}
	moduleRoot, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}

	// The checkout: a repository whose site/ has a history.
	work := filepath.Join(t.TempDir(), "repo")
	writeFiles(t, work, map[string]string{"site/index.html": "<title>Shrine</title>home", "site/a.html": "a", "README.md": "not the site"})
	gitIn(t, work, "", "init", "-q")
	day := time.Now().UTC().Truncate(time.Second).AddDate(0, 0, -3)
	d1, d2 := day.Format(time.RFC3339), day.Add(24*time.Hour).Format(time.RFC3339)
	gitIn(t, work, "", "add", "-A")
	gitIn(t, work, d1, "commit", "-q", "-m", "first")
	writeFiles(t, work, map[string]string{"site/a.html": "a, edited", "site/b.html": "b"})
	gitIn(t, work, "", "add", "-A")
	gitIn(t, work, d2, "commit", "-q", "-m", "second")

	r := &actionsRunner{t: t, workspace: work, tempDir: t.TempDir(), path: filepath.Dir(goTool(t)) + string(os.PathListSeparator) + os.Getenv("PATH")}
	r.pathFile = filepath.Join(r.tempDir, "github_path")
	var publishCmd, siteBase string
	for _, s := range recipe.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["repository"] == "":
			if s.With["fetch-depth"] != "0" {
				t.Errorf("the site's checkout has fetch-depth %q: --history needs the history", s.With["fetch-depth"])
			}
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			// tidings' source, checked out beside the site.
			if err := os.Symlink(moduleRoot, filepath.Join(work, s.With["path"])); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(s.Uses, "actions/upload-pages-artifact@"):
			if s.With["include-hidden-files"] != "true" {
				t.Errorf("the upload leaves out .well-known/: include-hidden-files is %q", s.With["include-hidden-files"])
			}
			if _, err := os.Stat(filepath.Join(work, s.With["path"], ".well-known", "resourcesync")); err != nil {
				t.Errorf("the uploaded folder has no Source Description: %v", err)
			}
		case s.Run != "":
			r.run(s.Run)
			if strings.Contains(s.Run, "tidings publish") {
				publishCmd = s.Run
			}
		}
	}
	m := regexp.MustCompile(`--base-url (\S+)`).FindStringSubmatch(publishCmd)
	if m == nil {
		t.Fatalf("no tidings publish --base-url step in the recipe:\n%s", yamlBlock)
	}
	siteBase = m[1]
	site := filepath.Join(work, "site")
	cl := readSiteDoc(t, site, "resourcesync/changelist.xml", siteBase)
	want := []string{
		"created " + siteBase + " " + d1,
		"created " + siteBase + "a.html " + d1,
		"updated " + siteBase + "a.html " + d2,
		"created " + siteBase + "b.html " + d2,
	}
	if got := changeLines(cl); !reflect.DeepEqual(got, want) {
		t.Fatalf("the Actions recipe's change list:\n got %q\nwant %q", got, want)
	}
	// The change feed, from the same commits, with their subjects as notes.
	feed := readChangeFeed(t, filepath.Join(site, "resourcesync", "changes.json"))
	// A page without a <title> is named by its address, as in tidings' feeds.
	wantFeed := []string{"Created: " + siteBase + "b.html: second", "Updated: " + siteBase + "a.html: second", "Created: " + siteBase + "a.html: first", "Created: Shrine: first"}
	if !reflect.DeepEqual(feed, wantFeed) {
		t.Errorf("the Actions recipe's change feed:\n got %q\nwant %q", feed, wantFeed)
	}
	sd := readSiteDoc(t, site, ".well-known/resourcesync", siteBase)
	if len(sd.Entries) != 1 || sd.Entries[0].Link("describes") != siteBase {
		t.Errorf("Source Description: %+v", sd.Entries)
	}

	// Neocities: the same binary, a folder outside git, the command up to
	// the upload.
	tidingsCmd, upload, ok := strings.Cut(neocities, " && ")
	if !ok || upload != "neocities push site/" || !strings.HasPrefix(tidingsCmd, "tidings publish site/ ") {
		t.Fatalf("the Neocities recipe is %q", neocities)
	}
	local := filepath.Join(t.TempDir(), "ann")
	writeFiles(t, local, map[string]string{"site/index.html": "home", "site/gallery.html": "cats"})
	r.workspace = local
	r.run(tidingsCmd)
	writeFiles(t, local, map[string]string{"site/gallery.html": "cats and dogs"})
	r.run(tidingsCmd)
	neoBase := regexp.MustCompile(`--base-url (\S+)`).FindStringSubmatch(tidingsCmd)[1]
	cl = readSiteDoc(t, filepath.Join(local, "site"), "resourcesync/changelist.xml", neoBase)
	if len(cl.Entries) != 1 || cl.Entries[0].Loc != neoBase+"gallery.html" || cl.Entries[0].Change != "updated" {
		t.Fatalf("the Neocities recipe's change list: %q", changeLines(cl))
	}
	if feed := readChangeFeed(t, filepath.Join(local, "site", "resourcesync", "changes.json")); !reflect.DeepEqual(feed, []string{"Updated: " + neoBase + "gallery.html: "}) {
		t.Errorf("the Neocities recipe's change feed: %q", feed)
	}
	out := r.run(tidingsCmd)
	if !strings.Contains(out, "no file rewritten") {
		t.Errorf("a third run printed:\n%s", out)
	}

	// The robots.txt line names a capability list the recipe wrote.
	loc, ok := strings.CutPrefix(robots, "Sitemap: "+neoBase)
	if !ok {
		t.Fatalf("the robots.txt line %q is not under %s", robots, neoBase)
	}
	if _, err := os.Stat(filepath.Join(local, "site", filepath.FromSlash(loc))); err != nil || !strings.HasSuffix(loc, "capabilitylist.xml") {
		t.Errorf("the robots.txt line names %s, which the recipe did not write: %v", loc, err)
	}
}

// readChangeFeed reads a change feed's JSON Feed as its entries' titles
// and notes, "title: note".
func readChangeFeed(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Items []struct{ Title, Summary string }
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range f.Items {
		out = append(out, it.Title+": "+it.Summary)
	}
	return out
}
