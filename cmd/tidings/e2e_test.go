package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
)

// goTool finds the go command: the one on PATH (go test puts its own
// first), else the one of the toolchain that built this test.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no go command to build tidings with: %v", err)
	}
	return p
}

// buildTidings builds the real binary into a temporary directory.
func buildTidings(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tidings")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.CommandContext(t.Context(), goTool(t), "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// cleanEnv is this process's environment without TIDINGS_* variables, plus
// the given ones.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TIDINGS_") {
			env = append(env, kv)
		}
	}
	// The fixture sites are ours and on loopback: no politeness delay, so
	// the tests run at the machine's speed (extra may still set one).
	env = append(env, "TIDINGS_HOST_DELAY=0s")
	return append(env, extra...)
}

// freeAddr returns a loopback address with a port nobody listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// syncBuffer collects a subprocess's output while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	bin := buildTidings(t)
	site := newSite(t)
	addr := freeAddr(t)
	base := "http://" + addr + "/"
	dbPath := filepath.Join(t.TempDir(), "tidings.db")
	env := cleanEnv(
		"TIDINGS_DB="+dbPath,
		"TIDINGS_ALLOW_PRIVATE_ADDRESSES=1",
		"TIDINGS_ADDR="+addr,
	)
	tidingsCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), bin, args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("tidings %q: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}

	add := exec.CommandContext(t.Context(), bin, "user", "add", "ann")
	add.Env, add.Stdin = env, strings.NewReader("correct horse battery\n")
	if out, err := add.CombinedOutput(); err != nil || !strings.Contains(string(out), "Created ann, admin") {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	out := tidingsCmd("follow", "--user", "ann", site.URL)
	// Feeds are at public ids; feedsN is the one of collection (or site) N.
	feeds1, feeds2, sites1 := base+public(t, dbPath, "feeds/1.atom"), base+public(t, dbPath, "feeds/2.atom"), base+public(t, dbPath, "sites/1.atom")
	for _, want := range []string{"My Shrine & Co", "feed: " + feeds1, "feed: " + feeds2} {
		if !strings.Contains(out, want) {
			t.Errorf("follow output lacks %q:\n%s", want, out)
		}
	}
	out = tidingsCmd("harvest", "--all")
	if want := site.URL + "/: 2 collection(s), 0 new change(s)"; !strings.Contains(out, want) {
		t.Errorf("harvest --all output lacks %q:\n%s", want, out)
	}

	srv := startServe(t, bin, env, base, "--addr", addr, "--no-scheduler")

	feed := getFeed(t, feeds1)
	if feed.FeedType != "atom" || feed.Title != "My Shrine & Co — changes" {
		t.Errorf("collection feed: type %q, title %q; want atom, %q", feed.FeedType, feed.Title, "My Shrine & Co — changes")
	}
	if feed.FeedLink != feeds1 || feed.Link != site.URL+"/shrine/" {
		t.Errorf("collection feed links: self %q, alternate %q", feed.FeedLink, feed.Link)
	}
	if len(feed.Items) != 1 {
		t.Fatalf("collection feed has %d entries, want 1 digest of the first harvest", len(feed.Items))
	}
	entry := feed.Items[0]
	idPattern := regexp.MustCompile(`^tag:127\.0\.0\.1,\d{4}-\d{2}-\d{2}:collection/[0-9a-f]{32}/run/[0-9a-f]{32}$`)
	if !idPattern.MatchString(entry.GUID) {
		t.Errorf("entry id %q does not match %s", entry.GUID, idPattern)
	}
	if entry.Title != "Now following My Shrine & Co: 3 pages" || entry.Link != site.URL+"/shrine/" {
		t.Errorf("entry: title %q, link %q", entry.Title, entry.Link)
	}
	for _, page := range []string{"gallery.html", "links.html", "old-news.html", "index.html"} {
		if want := `<a href="` + site.URL + "/shrine/" + page + `">`; !strings.Contains(entry.Content, want) {
			t.Errorf("entry content lacks %s:\n%s", want, entry.Content)
		}
	}

	// The sequential number of before public ids names no feed.
	resp, err := http.Get(base + "sites/1.atom")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET %ssites/1.atom: %s, want 404", base, resp.Status)
	}
	siteFeed := getFeed(t, sites1)
	if siteFeed.FeedLink != sites1 {
		t.Errorf("site feed self link %q, want %q", siteFeed.FeedLink, sites1)
	}
	if len(siteFeed.Items) != 2 {
		t.Errorf("site feed has %d entries, want one per collection (2)", len(siteFeed.Items))
	}
	var titles []string
	for _, it := range siteFeed.Items {
		titles = append(titles, it.Title)
	}
	if joined := strings.Join(titles, "|"); !strings.Contains(joined, "Now following My Shrine & Co: ") || !strings.Contains(joined, "Now following "+site.URL+"/gallery/: ") {
		t.Errorf("site feed entries %q do not cover both collections", titles)
	}

	index := signInAndGet(t, base, "ann", "correct horse battery")
	for _, want := range []string{feeds1, feeds2, sites1, "My Shrine &amp; Co"} {
		if !strings.Contains(index, want) {
			t.Errorf("index page lacks %q", want)
		}
	}

	srv.stop(t, os.Interrupt)
	if want := "tidings (development build) serving on http://" + addr + "/"; !strings.Contains(srv.stdout.String(), want) {
		t.Errorf("serve output lacks %q:\n%s", want, srv.stdout.String())
	}
	if _, err := http.Get(base); err == nil {
		t.Errorf("server still answers after it exited")
	}
}

// waitUntilServing polls base until it answers, failing if the server
// exits or stays silent.
func waitUntilServing(t *testing.T, base string, exited <-chan error, stderr *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base)
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("serve exited before answering: %v\nstderr:\n%s", err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not answer within 30 s: %v\nstderr:\n%s", err, stderr.String())
		}
	}
}

// get fetches url and returns its body and type, failing on any status
// but 200.
func get(t *testing.T, url string) (body, contentType string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, b)
	}
	return string(b), resp.Header.Get("Content-Type")
}

// getFeed fetches and parses a feed.
func getFeed(t *testing.T, url string) *gofeed.Feed {
	t.Helper()
	body, ctype := get(t, url)
	if !strings.HasPrefix(ctype, "application/atom+xml") {
		t.Errorf("GET %s: Content-Type %q, want application/atom+xml", url, ctype)
	}
	f, err := gofeed.NewParser().ParseString(body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return f
}

// signInAndGet signs in through the real form, CSRF token and all, and
// returns the dashboard.
func signInAndGet(t *testing.T, base, name, password string) string {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := client.Get(base + "signin")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("sign-in page has no CSRF token:\n%s", page)
	}
	resp, err = client.PostForm(base+"signin", url.Values{"csrf": {string(m[1])}, "name": {name}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Sign out "+name) {
		t.Fatalf("after signing in: %d\n%s", resp.StatusCode, body)
	}
	return string(body)
}

// served is a running `tidings serve` subprocess.
type served struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	exited         chan error
	stopped        bool
}

// startServe runs the binary's serve with env and args, kills it when the
// test ends unless stop was called, and waits until base answers.
func startServe(t *testing.T, bin string, env []string, base string, args ...string) *served {
	t.Helper()
	s := &served{cmd: exec.Command(bin, append([]string{"serve"}, args...)...), exited: make(chan error, 1)}
	s.cmd.Env = env
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if !s.stopped {
			s.cmd.Process.Kill()
			<-s.exited
		}
	})
	waitUntilServing(t, base, s.exited, &s.stderr)
	return s
}

// stop sends sig and asserts a clean exit within 20 s.
func (s *served) stop(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.exited:
		s.stopped = true
		if err != nil {
			t.Errorf("serve exited with %v after %v\nstderr:\n%s", err, sig, s.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("serve still running 20 s after %v\nstderr:\n%s", sig, s.stderr.String())
	}
}
