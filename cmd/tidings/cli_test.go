package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/internal/fixturesite"
)

// testBase is the public URL the CLI tests give tidings, so feed URLs are
// known in advance.
const testBase = "http://tidings.test/"

// result is what one in-process run of the CLI produced.
type result struct {
	stdout, stderr string
	err            error
	code           int
}

// tidings runs the CLI in-process with env as its whole environment.
func tidings(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), args, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	code := exitCode(err, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err, code: code}
}

// mustSucceed fails the test unless r exited 0.
func mustSucceed(t *testing.T, r result) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit code %d, want 0; err %v\nstdout:\n%s\nstderr:\n%s", r.code, r.err, r.stdout, r.stderr)
	}
}

// newSite starts a fixture site whose dates are relative to a whole second,
// as the documents write them.
func newSite(t *testing.T) *fixturesite.Site {
	t.Helper()
	s := fixturesite.New(time.Now().UTC().Truncate(time.Second))
	t.Cleanup(s.Close)
	return s
}

// newEnv is an environment with a fresh database, the test base URL and
// loopback fetching allowed; extra pairs override or add variables.
func newEnv(t *testing.T, extra ...string) map[string]string {
	t.Helper()
	env := map[string]string{
		"TIDINGS_DB":                      filepath.Join(t.TempDir(), "tidings.db"),
		"TIDINGS_BASE_URL":                testBase,
		"TIDINGS_ALLOW_PRIVATE_ADDRESSES": "1",
		"TIDINGS_HOST_DELAY":              "0s",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			delete(env, extra[i])
			continue
		}
		env[extra[i]] = extra[i+1]
	}
	return env
}

// lines splits JSON Lines output, failing on an empty line.
func lines(t *testing.T, out string) []string {
	t.Helper()
	var ls []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if sc.Text() == "" {
			t.Fatalf("empty line in JSON Lines output:\n%s", out)
		}
		ls = append(ls, sc.Text())
	}
	return ls
}

// checkKeys fails unless the JSON object has every key of want and no
// other key outside optional.
func checkKeys(t *testing.T, line string, want, optional []string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("line is not a JSON object: %v\n%s", err, line)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("line lacks %q: %s", k, line)
		}
	}
	for k := range m {
		if !slices.Contains(want, k) && !slices.Contains(optional, k) {
			t.Errorf("line has unexpected key %q: %s", k, line)
		}
	}
}

// change is the part of an exported change the tests compare.
type change struct {
	Site         string `json:"site"`
	Collection   string `json:"collection"`
	CollectionID int64  `json:"collection_id"`
	URL          string `json:"url"`
	Change       string `json:"change"`
	Datetime     string `json:"datetime"`
	Source       string `json:"source"`
}

var exportKeys = []string{"site", "collection", "collection_id", "url", "change", "datetime", "source", "text_change", "diff", "already_seen"}

// exportChanges runs `export changes` and decodes its lines.
func exportChanges(t *testing.T, env map[string]string, flags ...string) []change {
	t.Helper()
	r := tidings(t, env, append([]string{"export", "changes"}, flags...)...)
	mustSucceed(t, r)
	var out []change
	for _, l := range lines(t, r.stdout) {
		checkKeys(t, l, exportKeys, []string{"title", "summary"})
		var c change
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("decode %s: %v", l, err)
		}
		out = append(out, c)
	}
	return out
}

func TestFollowPrintsCollectionsWithFeedURLs(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	r := tidings(t, env, "follow", site.URL)
	mustSucceed(t, r)
	for _, want := range []string{
		site.URL + "/: 2 collection(s), 5 new change(s)\n",
		"  My Shrine & Co\n    feed: " + testBase + public(t, env["TIDINGS_DB"], "feeds/1.atom\n"),
		"  " + site.URL + "/gallery/\n    feed: " + testBase + public(t, env["TIDINGS_DB"], "feeds/2.atom\n"),
		"4 new change(s), 1 dated by lastmod, 2 older stored as already seen",
		"1 new change(s), 1 older stored as already seen",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("follow output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "already followed") {
		t.Errorf("first follow says the site was already followed:\n%s", r.stdout)
	}
}

func TestFollowAgainSaysAlreadyFollowedAndHarvests(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	before := site.Requests("/shrine/capabilitylist.xml")

	// A page URL of the same site names the same site.
	r := tidings(t, env, "follow", site.URL+"/shrine/about.html")
	mustSucceed(t, r)
	for _, want := range []string{
		site.URL + "/ is already followed; harvested it now.\n",
		site.URL + "/: 2 collection(s), 0 new change(s)\n",
		"feed: " + testBase + public(t, env["TIDINGS_DB"], "feeds/1.atom\n"),
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("second follow output lacks %q:\n%s", want, r.stdout)
		}
	}
	if after := site.Requests("/shrine/capabilitylist.xml"); after <= before {
		t.Errorf("second follow fetched the capability list %d times in all, as before it: no harvest", after)
	}
	if got := exportChanges(t, env); len(got) != 8 {
		t.Errorf("after following twice, %d changes are stored, want 8", len(got))
	}
}

func TestFollowSiteWithNothingListsWhatWasTried(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	site.Remove("/.well-known/resourcesync")
	env := newEnv(t)
	r := tidings(t, env, "follow", site.URL)
	if r.code == 0 {
		t.Fatalf("follow of a site with nothing exited 0:\n%s", r.stdout)
	}
	for _, want := range []string{
		"every page answered 404 Not Found: check the address; tried:",
		site.URL + "/.well-known/resourcesync returned 404",
		site.URL + "/robots.txt returned 404",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("error lacks %q:\n%s", want, r.stderr)
		}
	}
	f := tidings(t, env, "feeds", "--json")
	mustSucceed(t, f)
	if f.stdout != "" {
		t.Errorf("a failed follow stored collections:\n%s", f.stdout)
	}
}

func TestFollowPrivateAddressIsRefusedNamingTheFlag(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t, "TIDINGS_ALLOW_PRIVATE_ADDRESSES", "")
	r := tidings(t, env, "follow", site.URL)
	if r.code == 0 {
		t.Fatalf("follow of a loopback site without --allow-private-addresses exited 0:\n%s", r.stdout)
	}
	for _, want := range []string{"--allow-private-addresses", "TIDINGS_ALLOW_PRIVATE_ADDRESSES=1", "loopback"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("refusal lacks %q:\n%s", want, r.stderr)
		}
	}
	if log := site.Log(); len(log) != 0 {
		t.Errorf("refused follow still reached the site: %q", log)
	}
	if got := exportChanges(t, env); len(got) != 0 {
		t.Errorf("refused follow stored %d changes", len(got))
	}
}

// lastmodChange reports whether the change dated only by its lastmod (the
// update of links.html in changes-current.xml) was stored.
func lastmodChange(t *testing.T, site *fixturesite.Site, env map[string]string) bool {
	t.Helper()
	for _, c := range exportChanges(t, env) {
		if c.URL == site.URL+"/shrine/links.html" && c.Change == "updated" {
			return true
		}
	}
	return false
}

func TestEnvironmentAndFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		env         []string
		flags       []string
		wantRefused bool
		wantLastmod bool
	}{
		{name: "allow from env", env: []string{"TIDINGS_ALLOW_PRIVATE_ADDRESSES", "1"}, wantLastmod: true},
		{name: "allow from flag", env: []string{"TIDINGS_ALLOW_PRIVATE_ADDRESSES", ""},
			flags: []string{"--allow-private-addresses"}, wantLastmod: true},
		{name: "flag beats env for allow", env: []string{"TIDINGS_ALLOW_PRIVATE_ADDRESSES", "1"},
			flags: []string{"--allow-private-addresses=false"}, wantRefused: true},
		{name: "strict from env", env: []string{"TIDINGS_STRICT_DATETIME", "1"}, wantLastmod: false},
		{name: "strict from flag", flags: []string{"--strict-datetime"}, wantLastmod: false},
		{name: "flag beats env for strict", env: []string{"TIDINGS_STRICT_DATETIME", "1"},
			flags: []string{"--strict-datetime=false"}, wantLastmod: true},
		{name: "strict env false", env: []string{"TIDINGS_STRICT_DATETIME", "false"}, wantLastmod: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			site := newSite(t)
			env := newEnv(t, tt.env...)
			args := append(append([]string{"follow"}, tt.flags...), site.URL)
			r := tidings(t, env, args...)
			if tt.wantRefused {
				if r.code == 0 || !strings.Contains(r.stderr, "--allow-private-addresses") {
					t.Fatalf("want a refusal naming --allow-private-addresses; exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
				}
				if log := site.Log(); len(log) != 0 {
					t.Errorf("refused follow still reached the site: %q", log)
				}
				return
			}
			mustSucceed(t, r)
			if got := lastmodChange(t, site, env); got != tt.wantLastmod {
				t.Errorf("change dated by lastmod stored = %v, want %v", got, tt.wantLastmod)
			}
			if got := strings.Contains(r.stdout, "dated by lastmod"); got != tt.wantLastmod {
				t.Errorf("report mentions lastmod dating = %v, want %v:\n%s", got, tt.wantLastmod, r.stdout)
			}
			ignored := "ignored " + site.URL + "/shrine/links.html"
			if got := strings.Contains(r.stdout, ignored); got == tt.wantLastmod {
				t.Errorf("report warns %q = %v, want %v:\n%s", ignored, got, !tt.wantLastmod, r.stdout)
			}
		})
	}
}

func TestBadSettingsAreRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"env not a bool", []string{"TIDINGS_STRICT_DATETIME", "maybe"}, []string{"harvest"}, "TIDINGS_STRICT_DATETIME"},
		{"env not a duration", []string{"TIDINGS_INTERVAL", "daily"}, []string{"harvest"}, "TIDINGS_INTERVAL"},
		{"base URL not http", nil, []string{"feeds", "--base-url", "ftp://tidings.test/"}, "--base-url"},
		{"follow without URL", nil, []string{"follow"}, "follow needs a URL"},
		{"harvest all and site", nil, []string{"harvest", "--all", "--site", "http://127.0.0.1:9/"}, "--all or --site"},
		{"log format unknown", []string{"TIDINGS_LOG_FORMAT", "xml"}, []string{"harvest"}, `--log-format must be text or json, not "xml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tidings(t, newEnv(t, tt.env...), tt.args...)
			if r.code == 0 {
				t.Fatalf("%q exited 0, want an error", tt.args)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("error lacks %q:\n%s", tt.want, r.stderr)
			}
		})
	}
}

// feedLine is one line of `feeds --json` as a reader decodes it.
type feedLine struct {
	ID          int64      `json:"id"`
	Site        string     `json:"site"`
	Key         string     `json:"key"`
	Title       string     `json:"title"`
	Protocol    string     `json:"protocol"`
	FeedURL     string     `json:"feed_url"`
	Changes     int        `json:"changes"`
	History     int        `json:"history"`
	LastHarvest *time.Time `json:"last_harvest"`
	LastError   string     `json:"last_error"`
}

func TestFeedsJSON(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)

	createDB(t, env)
	empty := tidings(t, env, "feeds", "--json")
	mustSucceed(t, empty)
	if empty.stdout != "" {
		t.Errorf("feeds --json with nothing followed printed %q", empty.stdout)
	}

	start := time.Now()
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	r := tidings(t, env, "feeds", "--json")
	mustSucceed(t, r)
	ls := lines(t, r.stdout)
	if len(ls) != 2 {
		t.Fatalf("feeds --json printed %d lines, want 2:\n%s", len(ls), r.stdout)
	}
	root := site.URL + "/"
	want := []feedLine{
		{ID: 1, Site: root, Key: root + "shrine/", Title: "My Shrine & Co", Protocol: "resourcesync",
			FeedURL: testBase + public(t, env["TIDINGS_DB"], "feeds/1.atom"), Changes: 4, History: 2},
		{ID: 2, Site: root, Key: root + "gallery/", Title: root + "gallery/", Protocol: "resourcesync",
			FeedURL: testBase + public(t, env["TIDINGS_DB"], "feeds/2.atom"), Changes: 1, History: 1},
	}
	keys := []string{"id", "site", "key", "title", "protocol", "feed_url", "changes", "history", "last_harvest", "last_error"}
	for i, l := range ls {
		checkKeys(t, l, keys, nil)
		var got feedLine
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("decode %s: %v", l, err)
		}
		if got.LastHarvest == nil || got.LastHarvest.Before(start.Add(-time.Second)) || got.LastHarvest.After(time.Now()) {
			t.Errorf("line %d: last_harvest %v, want the time of the follow", i, got.LastHarvest)
		}
		got.LastHarvest = nil
		if got != want[i] {
			t.Errorf("line %d:\n got %+v\nwant %+v", i, got, want[i])
		}
	}

	plain := tidings(t, env, "feeds")
	mustSucceed(t, plain)
	for _, w := range want {
		if !strings.Contains(plain.stdout, w.Title) || !strings.Contains(plain.stdout, "feed "+w.FeedURL) {
			t.Errorf("feeds output lacks %q with its feed %s:\n%s", w.Title, w.FeedURL, plain.stdout)
		}
	}
}

func TestFeedsWithNothingFollowed(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	createDB(t, env)
	r := tidings(t, env, "feeds")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "tidings follow URL") {
		t.Errorf("feeds with nothing followed does not say how to follow:\n%s", r.stdout)
	}
}

func TestExportChanges(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))

	root := site.URL + "/"
	ago := func(d time.Duration) string { return site.Now.Add(-d).Format(time.RFC3339) }
	day := func(d time.Duration) string { return site.Now.Add(-d).Format("2006-01-02") + "T00:00:00Z" }
	shrine := func(page, kind, at, source string) change {
		return change{root, root + "shrine/", 1, root + "shrine/" + page, kind, at, root + "shrine/" + source}
	}
	gallery := func(page, kind, at string) change {
		return change{root, root + "gallery/", 2, root + "gallery/" + page, kind, at, root + "gallery/changes.xml"}
	}
	// Oldest first, history included.
	want := []change{
		shrine("index.html", "created", "2020-03-01T10:00:00Z", "changes-2020.xml"),
		shrine("links.html", "created", "2020-06-15T00:00:00Z", "changes-2020.xml"),
		gallery("dogs.html", "updated", ago(2000*time.Hour)),
		shrine("index.html", "updated", day(480*time.Hour), "changes-recent.xml.gz"),
		shrine("old-news.html", "deleted", ago(300*time.Hour), "changes-recent.xml.gz"),
		gallery("cats.html", "created", ago(72*time.Hour)),
		shrine("gallery.html", "created", ago(48*time.Hour), "changes-current.xml"),
		shrine("links.html", "updated", ago(24*time.Hour), "changes-current.xml"),
	}
	got := exportChanges(t, env)
	if !slices.Equal(got, want) {
		t.Errorf("export changes:\n got %+v\nwant %+v", got, want)
	}
	for _, c := range got {
		at, err := time.Parse(time.RFC3339, c.Datetime)
		if err != nil || !strings.HasSuffix(c.Datetime, "Z") || at.Location() != time.UTC {
			t.Errorf("datetime %q is not RFC 3339 in UTC (%v)", c.Datetime, err)
		}
	}
}

func TestExportChangesFilters(t *testing.T) {
	t.Parallel()
	a, b := newSite(t), newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", a.URL))
	mustSucceed(t, tidings(t, env, "follow", b.URL))
	if all := exportChanges(t, env); len(all) != 16 {
		t.Fatalf("two fixture sites export %d changes, want 16", len(all))
	}

	tests := []struct {
		name     string
		flags    []string
		want     int
		wantSite string
		wantColl int64
	}{
		// A page URL stands for its site.
		{"site", []string{"--site", b.URL + "/shrine/about.html"}, 8, b.URL + "/", 0},
		{"collection", []string{"--collection", "2"}, 2, a.URL + "/", 2},
		{"other site's collection", []string{"--collection", "3"}, 6, b.URL + "/", 3},
		{"site and collection", []string{"--site", b.URL, "--collection", "4"}, 2, b.URL + "/", 4},
		{"site and a collection of another site", []string{"--site", a.URL, "--collection", "4"}, 0, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := exportChanges(t, env, tt.flags...)
			if len(got) != tt.want {
				t.Fatalf("%q exported %d changes, want %d: %+v", tt.flags, len(got), tt.want, got)
			}
			for _, c := range got {
				if c.Site != tt.wantSite || (tt.wantColl != 0 && c.CollectionID != tt.wantColl) {
					t.Errorf("%q exported a change of %s collection %d: %+v", tt.flags, c.Site, c.CollectionID, c)
				}
			}
		})
	}
}

func TestHarvest(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	if n := site.Requests("/gallery/cats.html"); n != 0 {
		t.Errorf("the follow read a page %d time(s); its pages wait for the harvest after it", n)
	}
	// The follow left the site due at once, for its pages.
	mustSucceed(t, tidings(t, env, "harvest"))
	if n := site.Requests("/gallery/cats.html"); n != 1 {
		t.Errorf("the harvest after the follow read a page %d time(s), want once", n)
	}
	fetched := site.Requests("/shrine/capabilitylist.xml")

	due := tidings(t, env, "harvest")
	mustSucceed(t, due)
	if !strings.Contains(due.stdout, "No site is due for harvest.") {
		t.Errorf("harvest right after follow:\n%s", due.stdout)
	}
	if n := site.Requests("/shrine/capabilitylist.xml"); n != fetched {
		t.Errorf("harvest of due sites fetched from a site not due (%d → %d requests)", fetched, n)
	}

	for _, args := range [][]string{{"harvest", "--all"}, {"harvest", "--site", site.URL + "/gallery/"}} {
		r := tidings(t, env, args...)
		mustSucceed(t, r)
		if want := site.URL + "/: 2 collection(s), 0 new change(s)\n"; !strings.Contains(r.stdout, want) {
			t.Errorf("%q output lacks %q:\n%s", args, want, r.stdout)
		}
		if n := site.Requests("/shrine/capabilitylist.xml"); n <= fetched {
			t.Errorf("%q did not fetch the capability list", args)
		} else {
			fetched = n
		}
	}
}

func TestHarvestUnknownSite(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	fetched := len(site.Log())

	r := tidings(t, env, "harvest", "--site", "http://127.0.0.1:9/page.html")
	if r.code != 1 {
		t.Errorf("harvest --site of an unknown site: exit %d, want 1", r.code)
	}
	want := "http://127.0.0.1:9/ is not followed; follow it first with: tidings follow http://127.0.0.1:9/page.html"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("error lacks %q:\n%s", want, r.stderr)
	}
	if n := len(site.Log()); n != fetched {
		t.Errorf("harvest of an unknown site fetched from the followed one")
	}
}

func TestSubcommandHelp(t *testing.T) {
	t.Parallel()
	harvesting := []string{"db", "log-format", "base-url", "allow-private-addresses", "strict-datetime", "initial-window", "interval", "discovery-interval", "max-body"}
	tests := []struct {
		args  []string
		usage string
		own   []string
	}{
		{[]string{"serve"}, "serve", append([]string{"addr", "no-scheduler", "registration", "workers", "feed-entries"}, harvesting...)},
		{[]string{"worker"}, "worker", append([]string{"workers", "feed-entries", "websub-hub", "smtp-url", "mail-from", "keep-changes"}, harvesting...)},
		{[]string{"follow"}, "follow [--user NAME] [--workers N] [--from FILE] URL...", append([]string{"user", "workers", "from"}, harvesting...)},
		{[]string{"harvest"}, "harvest [--all | --site URL] [--workers N]", append([]string{"all", "site", "workers", "websub-hub"}, harvesting...)},
		{[]string{"feeds"}, "feeds [--json]", []string{"db", "base-url", "json"}},
		{[]string{"export", "changes"}, "export changes [--site URL] [--collection ID]", []string{"db", "site", "collection"}},
		{[]string{"opml", "export"}, "opml export --user NAME [--entries page]", []string{"db", "base-url", "user", "entries"}},
		{[]string{"user", "list"}, "user list", []string{"db"}},
		{[]string{"notify"}, "notify [--now]", []string{"db", "base-url", "smtp-url", "mail-from", "allow-private-addresses", "allow-loopback-base-url", "now"}},
		{[]string{"user", "notify"}, "user notify NAME [--email ADDR] [--every daily|weekly|off] [--push URL]... [--no-push URL] [--push-secret SECRET]",
			[]string{"db", "base-url", "smtp-url", "mail-from", "allow-private-addresses", "allow-loopback-base-url", "email", "every", "push", "no-push", "push-secret"}},
		{[]string{"user", "token"}, "user token NAME [--label TEXT] [--list] [--revoke ID]", []string{"db", "label", "list", "revoke"}},
		{[]string{"backup"}, "backup FILE", []string{"db"}},
		{[]string{"restore"}, "restore FILE", []string{"db"}},
		{[]string{"copy-db"}, "copy-db --to URL_OR_PATH", []string{"db", "to"}},
	}
	for _, tt := range tests {
		for _, help := range []string{"--help", "-h"} {
			t.Run(tt.usage+" "+help, func(t *testing.T) {
				t.Parallel()
				env := newEnv(t)
				r := tidings(t, env, append(tt.args, help)...)
				if r.code != 0 {
					t.Fatalf("exit code %d, want 0; stderr:\n%s", r.code, r.stderr)
				}
				if want := "Usage: tidings " + tt.usage + "\n"; !strings.HasPrefix(r.stderr, want) {
					t.Errorf("help does not start with %q:\n%s", want, r.stderr)
				}
				for _, name := range tt.own {
					want := "--" + name + " (" + envName(name) + ")"
					if invocationFlags[name] {
						// What one run should do has no environment variable.
						want = "--" + name + "\n"
					}
					if !strings.Contains(r.stderr, want) {
						t.Errorf("help lacks %q:\n%s", want, r.stderr)
					}
				}
				// Only the flags the command uses.
				if n := strings.Count(r.stderr, "\n  --"); n < len(tt.own) || (!slices.Contains(tt.own, "initial-window") && n != len(tt.own)) {
					t.Errorf("help lists %d flags, want %d:\n%s", n, len(tt.own), r.stderr)
				}
				if m, _ := filepath.Glob(env["TIDINGS_DB"] + "*"); len(m) != 0 {
					t.Errorf("--help created files: %q", m)
				}
			})
		}
	}
}

func TestTopLevelCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args       []string
		code       int
		stdout     string
		stderr     string
		notCreated bool
	}{
		{args: []string{"frobnicate"}, code: 2, stderr: `unknown command "frobnicate"`},
		{args: []string{"--db", "x.db"}, code: 2, stderr: `unknown command "--db"`},
		{args: nil, code: 2, stderr: "no command given"},
		{args: []string{"export"}, code: 2, stderr: "usage: tidings export changes"},
		{args: []string{"export", "everything"}, code: 2, stderr: "usage: tidings export changes"},
		{args: []string{"help"}, code: 0, stdout: "Commands:"},
		{args: []string{"--help"}, code: 0, stdout: "Commands:"},
		{args: []string{"version"}, code: 0, stdout: "tidings (development build) (commit "},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			r := tidings(t, newEnv(t), tt.args...)
			if r.code != tt.code {
				t.Errorf("exit code %d, want %d", r.code, tt.code)
			}
			if !strings.Contains(r.stdout, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, r.stdout)
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, r.stderr)
			}
			// The commands are shown when none is given; a mistaken one
			// is one sentence, not the help with the mistake below it.
			if tt.args == nil && !strings.Contains(r.stderr, "Commands:") {
				t.Errorf("no command given does not show the commands:\n%s", r.stderr)
			}
			if tt.args != nil && strings.Count(r.stderr, "\n") > 1 {
				t.Errorf("a mistaken command is said in more than one line:\n%s", r.stderr)
			}
		})
	}
}

// TestExportChangesText: each exported change says what its page's text
// gained, titled from the page when the change list gives no title.
func TestExportChangesText(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	site.Set("/gallery/cats.html", "<html><head><title>Cats of the Month</title></head><body><p>Tabby is the cat of May.</p></body></html>")
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	// The pages are read by the harvest the follow left due.
	mustSucceed(t, tidings(t, env, "harvest"))
	r := tidings(t, env, "export", "changes", "--collection", "2")
	mustSucceed(t, r)
	type textChange struct {
		URL        string `json:"url"`
		Title      string `json:"title"`
		TextChange string `json:"text_change"`
		Diff       string `json:"diff"`
	}
	cats := site.URL + "/gallery/cats.html"
	want := map[string]textChange{
		cats: {cats, "Cats of the Month", "changed", "--- /dev/null\n+++ " + cats + " " + site.Now.Add(-72*time.Hour).UTC().Format(time.RFC3339) +
			"\n@@ -0,0 +1 @@\n+Tabby is the cat of May.\n"},
		// History: older than the first-harvest window, not fetched.
		site.URL + "/gallery/dogs.html": {site.URL + "/gallery/dogs.html", "", "unknown", ""},
	}
	ls := lines(t, r.stdout)
	if len(ls) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(ls), len(want), r.stdout)
	}
	for _, l := range ls {
		var c textChange
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatal(err)
		}
		if c != want[c.URL] {
			t.Errorf("exported %+v\nwant     %+v", c, want[c.URL])
		}
	}
}
