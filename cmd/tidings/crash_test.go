//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"tidings/internal/fixturesite"
)

var crashSeed = flag.Uint64("crash.seed", 0, "seed of TestCrashSafety's kill delays (0: a new one, logged)")

// crashFleet is a set of fixture sites whose change lists grow phase by
// phase with entries dated after everything already harvested.
type crashFleet struct {
	t     *testing.T
	sites []*fixturesite.Site
	start time.Time // the dates of added entries count from here
}

func newCrashFleet(t *testing.T, n int) *crashFleet {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Second)
	f := &crashFleet{t: t, start: now.Add(-2 * time.Hour)}
	for range n {
		s := fixturesite.New(now)
		t.Cleanup(s.Close)
		f.sites = append(f.sites, s)
	}
	return f
}

func (f *crashFleet) setDelay(d time.Duration) {
	for _, s := range f.sites {
		s.SetDelay(d)
	}
}

// requests counts the requests every site of the fleet has received.
func (f *crashFleet) requests() int {
	n := 0
	for _, s := range f.sites {
		n += len(s.Log())
	}
	return n
}

// grow adds phase's entries to every site: two to the shrine's current
// change list (one of them re-updating a page listed before), one deletion
// to the gallery's list, and every third phase a new change list in the
// shrine's index. Their dates are later than any before, and before now,
// so no watermark hides them. It returns how many entries it added.
func (f *crashFleet) grow(phase int) int {
	f.t.Helper()
	at := func(i int) string {
		return f.start.Add(time.Duration(phase)*time.Minute + time.Duration(i)*time.Second).Format(time.RFC3339)
	}
	entry := func(loc, kind, when string) string {
		return fmt.Sprintf("  <url>\n    <loc>%s</loc>\n    <rs:md change=%q datetime=%q/>\n  </url>\n", loc, kind, when)
	}
	added := 0
	for _, s := range f.sites {
		f.insert(s, "/shrine/changes-current.xml", "</urlset>",
			entry(fmt.Sprintf("%s/shrine/page-%d.html", s.URL, phase), "created", at(1))+
				entry(s.URL+"/shrine/gallery.html", "updated", at(2)))
		gallery := entry(fmt.Sprintf("%s/gallery/photo-%d.html", s.URL, phase), "deleted", at(3))
		// The gallery binds the ResourceSync namespace to x:.
		f.insert(s, "/gallery/changes.xml", "</urlset>", strings.ReplaceAll(gallery, "rs:md", "x:md"))
		added += 3
		if phase%3 == 0 {
			list := fmt.Sprintf("/shrine/changes-phase-%d.xml", phase)
			s.Set(list, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="changelist" from="`+at(0)+`"/>
`+entry(fmt.Sprintf("%s/shrine/phase-%d.html", s.URL, phase), "created", at(4))+
				entry(s.URL+"/shrine/index.html", "updated", at(5))+"</urlset>\n")
			f.insert(s, "/shrine/changelist-index.xml", "</sitemapindex>", fmt.Sprintf(
				"  <sitemap>\n    <loc>%s%s</loc>\n    <rs:md capability=\"changelist\" from=%q/>\n  </sitemap>\n", s.URL, list, at(0)))
			added += 2
		}
	}
	return added
}

// insert puts text before the last occurrence of end in the document at
// path, as the site serves it now.
func (f *crashFleet) insert(s *fixturesite.Site, path, end, text string) {
	f.t.Helper()
	resp, err := http.Get(s.URL + path)
	if err != nil {
		f.t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		f.t.Fatalf("GET %s%s: %v %s", s.URL, path, err, resp.Status)
	}
	doc := string(body)
	i := strings.LastIndex(doc, end)
	if i < 0 {
		f.t.Fatalf("%s%s has no %s", s.URL, path, end)
	}
	s.Set(path, doc[:i]+text+doc[i:])
}

// crashDB runs the real binary on one database file.
type crashDB struct {
	t    *testing.T
	bin  string
	path string
	env  []string
}

func newCrashDB(t *testing.T, bin, path string, extraEnv ...string) *crashDB {
	env := cleanEnv(append([]string{"TIDINGS_DB=" + path, "TIDINGS_ALLOW_PRIVATE_ADDRESSES=1",
		"TIDINGS_BASE_URL=" + testBase}, extraEnv...)...)
	return &crashDB{t: t, bin: bin, path: path, env: env}
}

func (d *crashDB) command(args ...string) *exec.Cmd {
	cmd := exec.Command(d.bin, args...)
	cmd.Env = d.env
	return cmd
}

// run runs a command to its end, failing the test unless it exits 0.
func (d *crashDB) run(args ...string) string {
	d.t.Helper()
	cmd := d.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		d.t.Fatalf("tidings %q on %s: %v\nstdout:\n%s\nstderr:\n%s", args, filepath.Base(d.path), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// crashKey identifies a stored change. Both databases harvest the same
// fleet, so the site's URL (and port) is part of the key.
type crashKey struct {
	Site, Collection, URL, Change, Datetime string
}

// changes reads `tidings export changes` as a multiset.
func (d *crashDB) changes() map[crashKey]int {
	d.t.Helper()
	out := d.run("export", "changes")
	m := map[crashKey]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c struct {
			Site, Collection, URL, Change, Datetime string
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			d.t.Fatalf("export changes of %s: %v in %q", filepath.Base(d.path), err, sc.Text())
		}
		m[crashKey(c)]++
	}
	return m
}

// duplicates lists the keys stored more than once.
func duplicates(m map[crashKey]int) []string {
	var out []string
	for k, n := range m {
		if n > 1 {
			out = append(out, fmt.Sprintf("%dx %v", n, k))
		}
	}
	slices.Sort(out)
	return out
}

// missing lists the keys of want that got has fewer times.
func missing(want, got map[crashKey]int) []string {
	var out []string
	for k, n := range want {
		if got[k] < n {
			out = append(out, fmt.Sprintf("%v (%d of %d)", k, got[k], n))
		}
	}
	slices.Sort(out)
	return out
}

func total(m map[crashKey]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// firstLines keeps a failure message readable.
func firstLines(list []string) string {
	if len(list) > 10 {
		list = append(list[:10:10], fmt.Sprintf("… and %d more", len(list)-10))
	}
	return strings.Join(list, "\n")
}

// harvestKilled starts `harvest --all`, sends SIGKILL after delay and
// reports whether the signal ended the run (false: it had finished).
func (d *crashDB) harvestKilled(delay time.Duration) bool {
	d.t.Helper()
	cmd := d.command("harvest", "--all")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGKILL)
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return false
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
	}
	d.t.Fatalf("harvest --all failed before it was killed: %v\n%s", err, out.String())
	return false
}

// followFleet follows every site of the fleet, then copies the database to
// ref with `tidings backup`, so both start from the same first harvests.
func followFleet(t *testing.T, d *crashDB, fleet *crashFleet, ref string) {
	t.Helper()
	for _, s := range fleet.sites {
		d.run("follow", s.URL)
	}
	d.run("backup", ref)
}

// TestCrashSafety kills `tidings harvest --all` with SIGKILL at random
// points while it stores a growing fleet, restarts it, lets a last run
// finish, and compares the stored changes with a database that ran the
// same phases without kills: nothing lost, nothing duplicated.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the binary; skipped with -short")
	}
	const (
		sites      = 24
		phases     = 8
		minKills   = 24
		delay      = 5 * time.Millisecond
		maxAttempt = 60
	)
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	var delays []time.Duration
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("rerun with -crash.seed=%d; kill delays: %v", seed, delays)
		}
	})

	bin := buildTidings(t)
	fleet := newCrashFleet(t, sites)
	dir := t.TempDir()
	victim := newCrashDB(t, bin, filepath.Join(dir, "victim.db"))
	ref := newCrashDB(t, bin, filepath.Join(dir, "reference.db"))
	followFleet(t, victim, fleet, ref.path)

	// partial counts the kills that left the victim with some of the
	// phase's writes done and some not: those cut a harvest mid-way.
	kills, attempts, added, partial := 0, 0, 0, 0
	var full time.Duration
	for phase := 1; phase <= phases; phase++ {
		fleet.setDelay(0)
		added += fleet.grow(phase)
		if phase == 1 {
			// The reference's first run, slowed as the victim's are,
			// measures how long a whole harvest takes.
			fleet.setDelay(delay)
			began := time.Now()
			ref.run("harvest", "--all")
			full = time.Since(began)
			fleet.setDelay(0)
		} else {
			ref.run("harvest", "--all")
		}
		truth := ref.changes()
		before := total(victim.changes())
		fleet.setDelay(delay)
		// Spread the victim's kills over the phases, and make up any
		// shortfall (runs that finished before their kill) in the last.
		want := minKills * phase / phases
		for kills < want && attempts < maxAttempt {
			attempts++
			d := time.Duration(rng.Int64N(int64(full)))
			delays = append(delays, d)
			if victim.harvestKilled(d) {
				kills++
			}
			got := victim.changes()
			if dup := duplicates(got); len(dup) > 0 {
				t.Fatalf("phase %d, after the kill at %v: %d change(s) stored twice:\n%s", phase, d, len(dup), firstLines(dup))
			}
			if extra := missing(got, truth); len(extra) > 0 {
				t.Fatalf("phase %d, after the kill at %v: %d change(s) the reference does not have:\n%s", phase, d, len(extra), firstLines(extra))
			}
			if n := total(got); n > before && n < total(truth) {
				partial++
			}
			before = total(got)
		}
	}
	if kills < 20 {
		t.Fatalf("only %d of %d runs were killed before they finished (a whole harvest took %v)", kills, attempts, full)
	}

	fleet.setDelay(0)
	victim.run("harvest", "--all")
	ref.run("harvest", "--all")
	want, got := ref.changes(), victim.changes()
	if dup := duplicates(got); len(dup) > 0 {
		t.Errorf("%d change(s) stored twice:\n%s", len(dup), firstLines(dup))
	}
	if lost := missing(want, got); len(lost) > 0 {
		t.Errorf("%d change(s) lost:\n%s", len(lost), firstLines(lost))
	}
	if extra := missing(got, want); len(extra) > 0 {
		t.Errorf("%d change(s) the reference does not have:\n%s", len(extra), firstLines(extra))
	}
	if n := len(want); n < added {
		t.Errorf("the reference stored %d distinct changes, fewer than the %d entries added", n, added)
	}
	inFeeds := compareFeedEntries(t, ref, victim)
	t.Logf("survived %d SIGKILLs of %d runs (seed %d, a whole harvest of %d sites %v), %d of them after some of the run's changes were stored; compared %d changes (%d added during the phases), %d of them in feeds",
		kills, attempts, seed, sites, full.Round(time.Millisecond), partial, total(got), added, inFeeds)
}

// compareFeedEntries serves both databases and compares each collection's
// per-change feed: it holds the changes not stored as history, so equal
// feeds and equal exports mean the first-harvest window split them alike.
// Both databases share their first harvests (the backup), and no later run
// is a first harvest, so a difference would be a bug in keeping the split.
// It returns how many entries were compared.
func compareFeedEntries(t *testing.T, want, got *crashDB) int {
	t.Helper()
	// Feeds are at public ids, which the backup gave both databases.
	var feeds []string
	sc := bufio.NewScanner(strings.NewReader(want.run("feeds", "--json")))
	for sc.Scan() {
		var c struct {
			FeedURL string `json:"feed_url"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		feeds = append(feeds, strings.TrimPrefix(c.FeedURL, testBase))
	}
	wantBase, gotBase := serveCrashDB(t, want), serveCrashDB(t, got)
	compared := 0
	for _, feed := range feeds {
		path := feed + "?entries=page"
		w, g := pageEntries(t, wantBase+path), pageEntries(t, gotBase+path)
		if !slices.Equal(w, g) {
			t.Errorf("%s: entries differ\nreference:\n%s\nafter kills:\n%s", path, strings.Join(w, "\n"), strings.Join(g, "\n"))
		}
		compared += len(w)
	}
	return compared
}

// pageEntries lists a per-change feed's entries as link, kind and time.
func pageEntries(t *testing.T, url string) []string {
	t.Helper()
	body, _ := get(t, url)
	f, err := gofeed.NewParser().ParseString(body)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	var out []string
	for _, it := range f.Items {
		var when string
		if it.UpdatedParsed != nil {
			when = it.UpdatedParsed.UTC().Format(time.RFC3339)
		}
		kind, _, _ := strings.Cut(it.Title, ":")
		out = append(out, it.Link+" "+kind+" "+when)
	}
	slices.Sort(out)
	return out
}

// serveCrashDB runs `tidings serve --no-scheduler` on d until the test ends
// and returns its base URL.
func serveCrashDB(t *testing.T, d *crashDB) string {
	t.Helper()
	addr := freeAddr(t)
	base := "http://" + addr + "/"
	cmd := d.command("serve", "--no-scheduler", "--addr", addr, "--base-url", base)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited, done := make(chan error, 1), make(chan struct{})
	go func() {
		exited <- cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		<-done
	})
	waitUntilServing(t, base, exited, &stderr)
	return base
}

// terminate sends serve SIGTERM and waits for it to exit 0, at most 20 s
// (its grace period and some), killing it past that.
func terminate(t *testing.T, cmd *exec.Cmd, exited <-chan error, stderr *syncBuffer) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve exited with %v after SIGTERM\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("serve still running 20 s after SIGTERM\nstderr:\n%s", stderr.String())
	}
}

// TestServeSIGTERMFinishesWrites stops `tidings serve` with SIGTERM while
// its scheduler harvests a fleet: it exits 0 without errors, what it stored
// is consistent, the harvest a restart would make (the due sites) completes
// it to the reference, and so does a last `harvest --all`.
func TestServeSIGTERMFinishesWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and signals the binary; skipped with -short")
	}
	bin := buildTidings(t)
	fleet := newCrashFleet(t, 12)
	dir := t.TempDir()
	// Followed with a tiny interval, every site is due when serve starts;
	// serve and the restart then use the daily one.
	victim := newCrashDB(t, bin, filepath.Join(dir, "victim.db"), "TIDINGS_INTERVAL=1ms")
	ref := newCrashDB(t, bin, filepath.Join(dir, "reference.db"))
	followFleet(t, victim, fleet, ref.path)
	fleet.grow(1)
	before := total(victim.changes())

	fleet.setDelay(10 * time.Millisecond)
	requests := fleet.requests()
	ref.run("harvest", "--all")
	perHarvest := fleet.requests() - requests
	truth := ref.changes()

	srv := victim.command("serve", "--addr", freeAddr(t), "--interval", "24h")
	var stderr syncBuffer
	srv.Stderr = &stderr
	requests = fleet.requests()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for fleet.requests()-requests < perHarvest/2 {
		if time.Now().After(deadline) {
			srv.Process.Kill()
			<-exited
			t.Fatalf("serve's scheduler made %d of %d requests in 30 s\nstderr:\n%s", fleet.requests()-requests, perHarvest, stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	signalled, made := time.Now(), fleet.requests()-requests
	terminate(t, srv, exited, &stderr)
	stopped := time.Since(signalled)
	logs := stderr.String()
	for _, bad := range []string{"level=ERROR", "database is locked", "panic"} {
		if strings.Contains(logs, bad) {
			t.Errorf("serve's log has %q:\n%s", bad, logs)
		}
	}
	if failed := logLines(logs, `msg="harvest failed"`); failed != "" {
		t.Errorf("a harvest in flight at SIGTERM failed instead of finishing:\n%s", failed)
	}
	harvested := strings.Count(logs, `msg="harvested site"`)
	if harvested == 0 {
		t.Errorf("serve harvested no site before SIGTERM:\n%s", logs)
	}

	got := victim.changes()
	if dup := duplicates(got); len(dup) > 0 {
		t.Errorf("after SIGTERM, %d change(s) stored twice:\n%s", len(dup), firstLines(dup))
	}
	if extra := missing(got, truth); len(extra) > 0 {
		t.Errorf("after SIGTERM, %d change(s) the reference does not have:\n%s", len(extra), firstLines(extra))
	}
	stored := total(got) - before
	if stored <= 0 {
		t.Errorf("serve stored none of the new changes before SIGTERM (%d sites harvested)", harvested)
	}

	fleet.setDelay(0)
	victim.run("harvest", "--interval", "24h")
	if lost := missing(truth, victim.changes()); len(lost) > 0 {
		t.Errorf("the due harvest after a restart left out %d change(s) of the site SIGTERM cut short:\n%s", len(lost), firstLines(lost))
	}
	victim.run("harvest", "--all")
	got = victim.changes()
	if lost := missing(truth, got); len(lost) > 0 {
		t.Errorf("%d change(s) lost:\n%s", len(lost), firstLines(lost))
	}
	if extra := missing(got, truth); len(extra) > 0 {
		t.Errorf("%d change(s) the reference does not have:\n%s", len(extra), firstLines(extra))
	}
	t.Logf("SIGTERM after %d of %d requests: serve exited 0 in %v having harvested %d of %d sites and stored %d of %d new changes; compared %d changes after a last harvest",
		made, perHarvest, stopped.Round(time.Millisecond), harvested, len(fleet.sites), stored, total(truth)-before, total(got))
}

// logLines returns the lines of logs that contain s.
func logLines(logs, s string) string {
	var out []string
	for l := range strings.Lines(logs) {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
