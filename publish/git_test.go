package publish_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"tidings/publish"
)

// gitRepo makes a real git repository in a temporary folder; the site is
// its folder "site", as in a repository that holds more than the site.
func gitRepo(t *testing.T) (repo, site string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo = t.TempDir()
	git(t, repo, "", "init", "-q", "-b", "main")
	git(t, repo, "", "config", "user.name", "Ann")
	git(t, repo, "", "config", "user.email", "ann@example.org")
	git(t, repo, "", "config", "commit.gpgsign", "false")
	return repo, filepath.Join(repo, "site")
}

// git runs git in repo; date, when given, is the commit's date.
func git(t *testing.T, repo, date string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if date != "" {
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// commit writes files, removes the paths given as "-path", and commits
// everything at date.
func commit(t *testing.T, repo, date string, files map[string]string, remove ...string) {
	t.Helper()
	writeSite(t, repo, files)
	for _, r := range remove {
		git(t, repo, "", "rm", "-q", r)
	}
	git(t, repo, "", "add", "-A")
	git(t, repo, date, "commit", "-q", "-m", "change at "+date)
}

func TestDatetimeGit(t *testing.T) {
	repo, site := gitRepo(t)
	commit(t, repo, "2026-10-01T10:00:00Z", map[string]string{"site/index.html": "home", "site/a.html": "a", "site/b.html": "b"})
	commit(t, repo, "2026-10-05T10:00:00Z", map[string]string{"site/b.html": "b2", "elsewhere.html": "not in the site"})
	writeSite(t, site, map[string]string{"c.html": "not committed"})
	o := publish.Options{Dir: site, Datetime: publish.DatetimeGit}
	publishAt(t, o, "2026-11-01T00:00:00Z")
	lastmods := map[string]string{}
	for _, e := range readDoc(t, site, "resourcesync/resourcelist.xml").Entries {
		lastmods[e.Loc] = e.Lastmod.Format(time.RFC3339)
	}
	want := map[string]string{
		base:            "2026-10-01T10:00:00Z",
		base + "a.html": "2026-10-01T10:00:00Z",
		base + "b.html": "2026-10-05T10:00:00Z",
		base + "c.html": "2026-11-01T00:00:00Z", // not committed: the run's time
	}
	if !reflect.DeepEqual(lastmods, want) {
		t.Fatalf("lastmods:\n got %v\nwant %v", lastmods, want)
	}

	// The generated documents are committed too, as a site's repository
	// would; then a.html is edited and b.html removed in commits, and the
	// index page edited without one.
	commit(t, repo, "2026-11-01T01:00:00Z", nil)
	commit(t, repo, "2026-11-01T12:00:00Z", map[string]string{"site/a.html": "a2"})
	commit(t, repo, "2026-11-01T13:00:00Z", nil, "site/b.html")
	writeSite(t, site, map[string]string{"index.html": "home, edited"})
	// The default in a work tree is git (publishAt would ask for now).
	o.Datetime, o.BaseURL, o.Now = publish.DatetimeAuto, base, at(t, "2026-11-02T00:00:00Z")
	if _, err := publish.Publish(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	checkDocuments(t, site)
	got := changesOf(readDoc(t, site, "resourcesync/changelist.xml"))
	wantChanges := []change{
		{base + "a.html", "updated", "2026-11-01T12:00:00Z"},
		{base + "b.html", "deleted", "2026-11-01T13:00:00Z"},
		{base, "updated", "2026-11-02T00:00:00Z"},
	}
	if !reflect.DeepEqual(got, wantChanges) {
		t.Fatalf("changes:\n got %v\nwant %v", got, wantChanges)
	}
}

func TestHistoryFillsTheFirstChangeList(t *testing.T) {
	repo, site := gitRepo(t)
	commit(t, repo, "2026-09-01T10:00:00Z", map[string]string{"site/index.html": "home", "site/old.html": "old"})
	commit(t, repo, "2026-10-10T10:00:00Z", map[string]string{"site/x.html": "x", "site/notes.txt": "not a page", "site/.drafts/d.html": "hidden"})
	commit(t, repo, "2026-10-15T10:00:00Z", map[string]string{"site/x.html": "x2", "other/y.html": "outside the site"})
	commit(t, repo, "2026-10-16T10:00:00Z", nil, "site/old.html")
	o := publish.Options{Dir: site, History: 30 * 24 * time.Hour, Datetime: publish.DatetimeGit}
	res := publishAt(t, o, "2026-11-01T00:00:00Z")
	if c := res.Collections[0]; !c.First || c.Created != 1 || c.Updated != 1 || c.Deleted != 1 {
		t.Fatalf("result %+v", c)
	}
	cl := readDoc(t, site, "resourcesync/changelist.xml")
	got := changesOf(cl)
	want := []change{
		{base + "x.html", "created", "2026-10-10T10:00:00Z"},
		{base + "x.html", "updated", "2026-10-15T10:00:00Z"},
		{base + "old.html", "deleted", "2026-10-16T10:00:00Z"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes:\n got %v\nwant %v", got, want)
	}
	if cl.From.Format(time.RFC3339) != "2026-10-02T00:00:00Z" {
		t.Errorf("from %v, want 30 days before the run", cl.From)
	}
	// --history only begins a history: the next run compares as usual.
	writeSite(t, site, map[string]string{"x.html": "x3"})
	publishAt(t, o, "2026-11-02T00:00:00Z")
	lists, got := allChanges(t, site, "resourcesync")
	want = append(want, change{base + "x.html", "updated", "2026-11-02T00:00:00Z"})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the second run:\n got %v\nwant %v", got, want)
	}
	// October's changes were archived when November's first came.
	if len(lists) != 2 || lists[0].Until.Format(time.RFC3339) != "2026-11-01T00:00:00Z" {
		t.Errorf("%d lists, the first until %v", len(lists), lists[0].Until)
	}
}
