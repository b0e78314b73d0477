package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tidings/internal/fixturesite"
)

// tidingsIn runs the CLI in-process as tidings does, with stdin.
func tidingsIn(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), args, func(k string) string { return env[k] }, strings.NewReader(stdin), &stdout, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err, code: exitCode(err, &stderr)}
}

// feedSites maps each site of `feeds --json` to its count of collections.
func feedSites(t *testing.T, env map[string]string) map[string]int {
	t.Helper()
	r := tidings(t, env, "feeds", "--json")
	mustSucceed(t, r)
	out := map[string]int{}
	for _, l := range lines(t, r.stdout) {
		var f feedLine
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatal(err)
		}
		out[f.Site]++
	}
	return out
}

func TestFollowManySitesInOneRun(t *testing.T) {
	t.Parallel()
	var sites []*fixturesite.Site
	for range 4 {
		sites = append(sites, newSite(t))
	}
	env := newEnv(t)
	file := filepath.Join(t.TempDir(), "sites.txt")
	list := "# the first two\n" + sites[0].URL + "\n\n" + sites[1].URL + "/shrine/\n"
	if err := os.WriteFile(file, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tidings(t, env, "follow", "--workers", "3", "--from", file, sites[2].URL)
	mustSucceed(t, r)
	r = tidingsIn(t, env, sites[3].URL+"\n"+sites[0].URL+"\n", "follow", "--from", "-")
	mustSucceed(t, r)
	if want := sites[0].URL + "/ is already followed; harvested it now.\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, r.stdout)
	}
	got := feedSites(t, env)
	for i, s := range sites {
		if got[s.URL+"/"] != 2 {
			t.Errorf("site %d has %d collections, want 2: %v", i, got[s.URL+"/"], got)
		}
		if n := s.Overlaps(); n != 0 {
			t.Errorf("site %d got %d requests while answering another", i, n)
		}
	}
}

func TestFollowManyReportsEachFailure(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	empty := newSite(t)
	empty.Remove("/.well-known/resourcesync")
	env := newEnv(t)
	r := tidings(t, env, "follow", site.URL, empty.URL, "mailto:ann@example.org")
	if r.code != 1 || !strings.Contains(r.stderr, "2 of 3 site(s) could not be followed") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{empty.URL + ": problem: every page answered 404", "mailto:ann@example.org: problem:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if got := feedSites(t, env); len(got) != 1 || got[site.URL+"/"] != 2 {
		t.Errorf("followed: %v; want only the site with change information", got)
	}
}

func TestHarvestAllWithWorkers(t *testing.T) {
	t.Parallel()
	a, b := newSite(t), newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", a.URL, b.URL))
	before := a.Requests("/shrine/capabilitylist.xml") + b.Requests("/shrine/capabilitylist.xml")
	r := tidings(t, env, "harvest", "--all", "--workers", "2")
	mustSucceed(t, r)
	for _, s := range []*fixturesite.Site{a, b} {
		if want := s.URL + "/: 2 collection(s), 0 new change(s)\n"; !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if after := a.Requests("/shrine/capabilitylist.xml") + b.Requests("/shrine/capabilitylist.xml"); after != before+2 {
		t.Errorf("capability lists read %d times by harvest --all, want 2", after-before)
	}
	if r := tidings(t, env, "harvest", "--all", "--workers", "0"); r.code != 2 {
		t.Errorf("--workers 0: exit %d, want 2", r.code)
	}
}

// TestUnfollowedSiteIsLeftAlone: once the account of a site's last
// follower is deleted, harvest leaves the site out, and follow without a
// user brings it back.
func TestUnfollowedSiteIsLeftAlone(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	other := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", other.URL)) // the command line's own: there is no account yet
	mustSucceed(t, tidingsIn(t, env, "secret-password\n", "user", "add", "ann"))
	mustSucceed(t, tidings(t, env, "follow", "--user", "ann", site.URL))
	mustSucceed(t, tidings(t, env, "user", "delete", "ann"))

	fetched := len(site.Log())
	all := tidings(t, env, "harvest", "--all")
	mustSucceed(t, all)
	if n := len(site.Log()); n != fetched {
		t.Errorf("harvest --all fetched %d documents from a site nobody follows", n-fetched)
	}
	if !strings.Contains(all.stdout, other.URL+"/: 2 collection(s)") {
		t.Errorf("harvest --all left out the site the command line follows:\n%s", all.stdout)
	}
	r := tidings(t, env, "harvest", "--site", site.URL)
	if want := "nobody has followed " + site.URL + "/ since"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("harvest --site of a site nobody follows: exit %d, stderr lacks %q:\n%s", r.code, want, r.stderr)
	}

	mustSucceed(t, tidings(t, env, "follow", site.URL))
	fetched = len(site.Log())
	mustSucceed(t, tidings(t, env, "harvest", "--all"))
	if len(site.Log()) == fetched {
		t.Error("followed again with the command line, the site is still left out")
	}
}
