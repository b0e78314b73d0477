package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/internal/harvesttest"
	"tidings/internal/pgtest"
)

// TestCopyDBAndBack: a followed site copied SQLite → PostgreSQL → SQLite
// exports the same changes at every hop, and each copy serves the same
// feeds list; a copy into a database that holds something is refused.
// Without a PostgreSQL server, the copy is SQLite → SQLite.
func TestCopyDBAndBack(t *testing.T) {
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	want := tidings(t, env, "export", "changes")
	mustSucceed(t, want)
	if strings.Count(want.stdout, "\n") < 3 {
		t.Fatalf("the follow exported too little to compare:\n%s", want.stdout)
	}
	feeds := tidings(t, env, "feeds", "--json")
	mustSucceed(t, feeds)
	ids := entryIDs(t, env["TIDINGS_DB"])
	if len(ids) < 6 {
		t.Fatalf("the feeds hold too few entries to compare: %q", ids)
	}
	hops := []string{filepath.Join(t.TempDir(), "copy.db")}
	if server, _ := pgtest.Server(); server != "" {
		hops = []string{pgtest.NewDatabase(t), filepath.Join(t.TempDir(), "back.db")}
	}
	from := env["TIDINGS_DB"]
	for _, to := range hops {
		r := tidings(t, env, "copy-db", "--db", from, "--to", to)
		mustSucceed(t, r)
		if !strings.HasPrefix(r.stdout, "Copied ") || !strings.Contains(r.stdout, "changes ") {
			t.Errorf("copy-db said %q", r.stdout)
		}
		again := tidings(t, env, "copy-db", "--db", from, "--to", to)
		if again.code == 0 || !strings.Contains(again.stderr, "already holds data") {
			t.Errorf("a copy into a database that holds something: code %d, %q", again.code, again.stderr)
		}
		if got := tidings(t, env, "export", "changes", "--db", to); got.stdout != want.stdout || got.code != 0 {
			t.Errorf("export changes of %s (code %d, %s):\n%s\nwant:\n%s", to, got.code, got.stderr, got.stdout, want.stdout)
		}
		if got := tidings(t, env, "feeds", "--json", "--db", to); got.stdout != feeds.stdout {
			t.Errorf("feeds of %s:\n%s\nwant:\n%s", to, got.stdout, feeds.stdout)
		}
		// A reader subscribed before the move sees no entry twice: the
		// copy's feeds list the same entry ids, digests and pages alike.
		if got := entryIDs(t, to); !slices.Equal(got, ids) {
			t.Errorf("entry ids of %s:\n%q\nwant:\n%q", to, got, ids)
		}
		from = to
	}
}

// entryIDs lists the entry ids of every collection's Atom feed in the
// database at target, its digests' then its pages'.
func entryIDs(t *testing.T, target string) []string {
	t.Helper()
	store, err := db.Open(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cols, err := store.Collections(t.Context(), db.CollectionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, perPage := range []bool{false, true} {
		for _, c := range cols {
			for _, m := range regexp.MustCompile(`<id>([^<]+)</id>`).FindAllStringSubmatch(harvesttest.CollectionAtom(t, store, c.ID, perPage), -1) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// TestFollowOnEachEngine: the fixture site followed and harvested again
// on SQLite and on PostgreSQL exports the same changes and lists the same feeds, but for
// their random addresses and the time of the harvest.
func TestFollowOnEachEngine(t *testing.T) {
	site := newSite(t)
	lite := newEnv(t)
	pg := newEnv(t, "TIDINGS_DB", pgtest.NewDatabase(t))
	for _, env := range []map[string]string{lite, pg} {
		mustSucceed(t, tidings(t, env, "follow", site.URL))
		mustSucceed(t, tidings(t, env, "harvest", "--all"))
	}
	for _, args := range [][]string{{"export", "changes"}, {"feeds", "--json"}} {
		want, got := tidings(t, lite, args...), tidings(t, pg, args...)
		mustSucceed(t, got)
		unlike := regexp.MustCompile(`"(feed_url|last_harvest)":"[^"]*"`)
		want.stdout, got.stdout = unlike.ReplaceAllString(want.stdout, ""), unlike.ReplaceAllString(got.stdout, "")
		if got.stdout != want.stdout || strings.Count(want.stdout, "\n") < 2 {
			t.Errorf("%s on PostgreSQL:\n%s\nwant, as on SQLite:\n%s", strings.Join(args, " "), got.stdout, want.stdout)
		}
	}
}
