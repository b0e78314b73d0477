package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"tidings/db"
	"tidings/source"
)

// createDB creates env's database, empty, as serve would.
func createDB(t *testing.T, env map[string]string) {
	t.Helper()
	store, err := db.Open(t.Context(), env["TIDINGS_DB"])
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
}

// TestFollowWithoutUser: a follow without --user says no account follows
// the site, naming the accounts there are; with exactly one account, the
// site is added to it.
func TestFollowWithoutUser(t *testing.T) {
	t.Parallel()
	site := newSite(t)

	none := newEnv(t)
	r := tidings(t, none, "follow", site.URL)
	mustSucceed(t, r)
	if want := "No account follows " + site.URL + "/: its feeds are served at the addresses above; create an account with tidings user add NAME"; !strings.Contains(r.stdout, want) {
		t.Errorf("follow with no account lacks %q:\n%s", want, r.stdout)
	}

	one := newEnv(t)
	mustSucceed(t, tidingsIn(t, one, "pw-of-ann-long\n", "user", "add", "ann"))
	r = tidings(t, one, "follow", site.URL)
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "ann now follows "+site.URL+"/.") || strings.Contains(r.stdout, "No account follows") {
		t.Errorf("follow with one account:\n%s", r.stdout)
	}
	r = tidings(t, one, "opml", "export", "--user", "ann")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, public(t, one["TIDINGS_DB"], "feeds/1.atom")) {
		t.Errorf("ann's OPML lacks the site followed without --user:\n%s", r.stdout)
	}

	two := newEnv(t)
	mustSucceed(t, tidingsIn(t, two, "pw-of-ann-long\n", "user", "add", "ann"))
	mustSucceed(t, tidingsIn(t, two, "pw-of-bob-long\n", "user", "add", "bob"))
	r = tidings(t, two, "follow", site.URL)
	mustSucceed(t, r)
	if want := "No account follows " + site.URL + "/: its feeds are served at the addresses above; add it to an account with --user NAME (ann, bob)."; !strings.Contains(r.stdout, want) {
		t.Errorf("follow with two accounts lacks %q:\n%s", want, r.stdout)
	}
	// Followed by an account since, it is not said to be followed by none.
	mustSucceed(t, tidings(t, two, "follow", "--user", "bob", site.URL))
	if r = tidings(t, two, "follow", site.URL); strings.Contains(r.stdout, "No account follows") {
		t.Errorf("a site bob follows is said to be followed by no account:\n%s", r.stdout)
	}
}

// TestExportUnknownFilterIsAnError: an --collection or --site that matches
// nothing stored is an error naming it, not an empty export.
func TestExportUnknownFilterIsAnError(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--collection", "99"}, "there is no collection 99; tidings feeds lists them"},
		{[]string{"--site", "https://elsewhere.example/"}, "https://elsewhere.example/ is not followed"},
	} {
		r := tidings(t, env, append([]string{"export", "changes"}, tt.args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("export %q: exit %d, stdout %q, stderr %q; want 1 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
	if got := exportChanges(t, env, "--collection", "1", "--site", site.URL); len(got) == 0 {
		t.Error("export of a known collection and site is empty")
	}
}

// TestMissingDatabase: a --db that does not exist is an error, creating
// nothing, for every command but serve, follow and user add (and restore,
// which puts one there).
func TestMissingDatabase(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"harvest"}, {"feeds"}, {"export", "changes"}, {"user", "list"}, {"user", "delete", "ann"},
		{"opml", "export", "--user", "ann"}, {"backup", "copy.db"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			env := newEnv(t)
			if args[0] == "backup" {
				args = []string{"backup", filepath.Join(t.TempDir(), "copy.db")}
			}
			r := tidings(t, env, args...)
			want := "there is no database " + env["TIDINGS_DB"] + ": give the one serve uses with --db or TIDINGS_DB"
			if r.code != 1 || !strings.Contains(r.stderr, want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
			}
			if m, _ := filepath.Glob(env["TIDINGS_DB"] + "*"); len(m) != 0 {
				t.Errorf("created %q", m)
			}
		})
	}
	env := newEnv(t)
	mustSucceed(t, tidingsIn(t, env, "pw-of-ann-long\n", "user", "add", "ann"))
	if _, err := os.Stat(env["TIDINGS_DB"]); err != nil {
		t.Errorf("user add did not create the database: %v", err)
	}
	mustSucceed(t, tidings(t, env, "user", "list"))
}

// TestTopLevelHelpNamesEverySource: the help names each source of change
// information the harvester knows.
func TestTopLevelHelpNamesEverySource(t *testing.T) {
	t.Parallel()
	r := tidings(t, newEnv(t), "help")
	mustSucceed(t, r)
	for _, want := range []string{"ResourceSync change lists", "SCP collections", "ARC sitemaps", "demo", "serve", "follow"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(sources(), ", ,") || len(strings.Split(sources(), ", ")) != len(source.Names()) {
		t.Errorf("sources %q for protocols %q", sources(), source.Names())
	}
}

// TestBinaryVersionAndSignals builds the binary without VCS stamping, its
// commit given as the README's build line gives it; then serve stops on
// SIGINT and on SIGTERM, saying why, with exit code 0.
func TestBinaryVersionAndSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "tidings")
	build := exec.CommandContext(t.Context(), goTool(t), "build", "-buildvcs=false",
		"-ldflags", "-X main.Version=v1.2.3 -X main.Commit=0123abcd", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(t.Context(), bin, "version").CombinedOutput()
	if err != nil || string(out) != "tidings v1.2.3 (commit 0123abcd)\n" {
		t.Errorf("version: %q, %v", out, err)
	}

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		addr := freeAddr(t)
		env := cleanEnv("TIDINGS_DB="+filepath.Join(t.TempDir(), "tidings.db"), "TIDINGS_ADDR="+addr)
		srv := startServe(t, bin, env, "http://"+addr+"/")
		srv.stop(t, sig)
		logs := srv.stderr.String()
		want := `msg=stopping reason="received ` + map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig] + `"`
		if !strings.Contains(logs, want) || !strings.Contains(logs, "msg=stopped") {
			t.Errorf("after %v the log lacks %s and msg=stopped:\n%s", sig, want, logs)
		}
	}
}
