package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand: a list with junk, previewed (nothing followed,
// each refusal named), imported (the site followed, discovered over
// loopback), a rule added, exported, and the export imported for a
// person on an empty database: the same follows and rules there.
func TestImportCommand(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidingsIn(t, env, "pw-of-ann-long\n", "user", "add", "ann"))
	list := filepath.Join(t.TempDir(), "sites.txt")
	if err := os.WriteFile(list, []byte("# mine\n"+site.URL+"/\n\nnot an address\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	r := tidings(t, env, "import", "--user", "ann", "--preview", list)
	mustSucceed(t, r)
	for _, want := range []string{"Read as: list", "To follow (1):\n  " + site.URL + "/\n", `line 4: "not an address" is not a web address`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the preview lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := tidings(t, env, "opml", "export", "--user", "ann"); strings.Contains(r.stdout, site.URL) {
		t.Errorf("the preview followed the site:\n%s", r.stdout)
	}

	r = tidings(t, env, "import", "--user", "ann", list)
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "followed: "+site.URL+"/") {
		t.Errorf("the import:\n%s\n%s", r.stdout, r.stderr)
	}
	mustSucceed(t, tidings(t, env, "ignore", site.URL, "--text", "Visitors today"))
	// The rule for everyone stays with the site; the export carries the
	// follows and the person's name for them.
	r = tidings(t, env, "import", "--user", "ann", "--export")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, `"url": "`+site.URL+`/"`) || strings.Contains(r.stdout, "Visitors today") {
		t.Fatalf("the export:\n%s", r.stdout)
	}
	export := filepath.Join(t.TempDir(), "export.json")
	if err := os.WriteFile(export, []byte(r.stdout), 0o600); err != nil {
		t.Fatal(err)
	}

	empty := newEnv(t)
	mustSucceed(t, tidingsIn(t, empty, "pw-of-ann-long\n", "user", "add", "ann"))
	r = tidings(t, empty, "import", "--user", "ann", export)
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "Read as: tidings") || !strings.Contains(r.stdout, "followed: "+site.URL+"/") {
		t.Errorf("the import of the export:\n%s", r.stdout)
	}
	again := tidings(t, empty, "import", "--user", "ann", "--export")
	mustSucceed(t, again)
	if cut := func(s string) string { _, rest, _ := strings.Cut(s, `"user"`); return rest }; cut(again.stdout) != cut(export2(t, export)) {
		t.Errorf("the round trip:\n%s\nwant\n%s", again.stdout, export2(t, export))
	}

	for _, args := range [][]string{{"import"}, {"import", "--user", "ann"}, {"import", "--user", "ann", "--export", list}} {
		if r := tidings(t, env, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2", args, r.code)
		}
	}
	if r := tidings(t, env, "import", "--user", "nobody", list); r.code != 1 || !strings.Contains(r.stderr, `there is no user "nobody"`) {
		t.Errorf("an unknown user: %d %s", r.code, r.stderr)
	}
}

func export2(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
