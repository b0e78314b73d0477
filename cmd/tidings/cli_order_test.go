package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlagsAfterArguments: every command takes its flags before, after
// or between its arguments, and "--" ends the flags.
func TestFlagsAfterArguments(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t, "TIDINGS_ALLOW_PRIVATE_ADDRESSES", "")

	// The address policy refuses the loopback site unless the flag after
	// the address is read.
	r := tidings(t, env, "check", site.URL, "--allow-private-addresses")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "Checked "+site.URL+"/") {
		t.Errorf("check URL --allow-private-addresses did not check:\n%s", r.stdout)
	}

	r = tidings(t, env, "follow", site.URL, "--allow-private-addresses")
	mustSucceed(t, r)
	mustSucceed(t, tidingsIn(t, env, "pw-of-ann-long\n", "user", "add", "ann"))
	other := filepath.Join(t.TempDir(), "other.db")
	mustSucceed(t, tidingsIn(t, env, "pw-of-bob-long\n", "user", "add", "bob", "--db", other))
	r = tidings(t, env, "user", "list", "--db", other)
	mustSucceed(t, r)
	if r.stdout == "" || !strings.Contains(r.stdout, "bob") || strings.Contains(r.stdout, "ann") {
		t.Errorf("user add bob --db OTHER then user list --db OTHER:\n%s", r.stdout)
	}
	backup := filepath.Join(t.TempDir(), "copy.db")
	mustSucceed(t, tidings(t, env, "backup", backup, "--db", other))
	r = tidings(t, env, "user", "list", "--db", backup)
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "bob") {
		t.Errorf("the backup written with --db after its file lacks bob:\n%s", r.stdout)
	}
	// "--" ends the flags: what follows is an argument however it looks.
	r = tidings(t, env, "user", "delete", "--db", other, "--", "--json")
	if want := "tidings: there is no user \"--json\"\n"; r.code != 1 || r.stderr != want {
		t.Errorf("user delete -- --json: exit %d, stderr %q, want 1 and %q", r.code, r.stderr, want)
	}
	r = tidings(t, env, "feeds", "json", "--db", other)
	if want := "tidings: feeds takes flags only, not \"json\"; tidings feeds --help lists its flags\n"; r.code != 2 || r.stderr != want {
		t.Errorf("feeds with an argument it does not take: exit %d, stderr %q, want 2 and %q", r.code, r.stderr, want)
	}
}

// TestErrorSentences: each mistake is said in one sentence that says
// what was wrong and what to do, with no help or driver chain around it.
func TestErrorSentences(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	mustSucceed(t, tidingsIn(t, env, "pw-of-ann-long\n", "user", "add", "ann"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close() // nothing listens there now: a PostgreSQL server that is down
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"frobnicate"}, 2, `tidings: unknown command "frobnicate"; tidings help lists the commands`},
		{[]string{"--db", "x.db", "feeds"}, 2, `tidings: unknown command "--db": the command comes first and its flags after it, as in tidings feeds --db FILE; tidings help lists the commands`},
		{[]string{"feeds", "--bogus"}, 2, `tidings: feeds has no flag --bogus; tidings feeds --help lists its flags`},
		{[]string{"export", "changes", "--site"}, 2, `tidings: --site needs a value, as in --site VALUE; tidings export changes --help lists its flags`},
		{[]string{"harvest", "--workers", "many"}, 2, `tidings: --workers does not take "many": it takes a whole number; tidings harvest --help lists its flags`},
		{[]string{"serve", "--interval", "5"}, 2, `tidings: --interval does not take "5": it takes a duration such as 90s, 15m or 24h; tidings serve --help lists its flags`},
		{[]string{"ignore", "http://127.0.0.1:9/", "--text", "/(ab/"}, 2,
			"tidings: /(ab/ is not a pattern tidings can read: missing closing ) in `(ab`; mend it, or write it without the slashes to ignore it as plain text."},
		{[]string{"copy-db", "--to", "postgres://tidings:secret@" + down + "/tidings"}, 1,
			"tidings: the database --to names, postgres://tidings:xxxxx@" + down + "/tidings, does not answer (connection refused): start it, or correct --to, and run copy-db again; nothing was copied"},
		{[]string{"feeds", "--db", "postgres://tidings:secret@" + down + "/tidings"}, 1,
			"tidings: the database --db names, postgres://tidings:xxxxx@" + down + "/tidings, does not answer (connection refused): start it, or correct --db (TIDINGS_DB), and run the command again"},
	}
	for _, tt := range tests {
		r := tidings(t, env, tt.args...)
		if r.code != tt.code || r.stderr != tt.want+"\n" || r.stdout != "" {
			t.Errorf("tidings %s: exit %d, stdout %q, stderr\n%s\nwant exit %d and\n%s", strings.Join(tt.args, " "), r.code, r.stdout, r.stderr, tt.code, tt.want)
		}
	}
}
