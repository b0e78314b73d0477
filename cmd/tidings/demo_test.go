package main

import (
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
)

// TestDemo runs `tidings demo` as the binary with the sample sites
// changing every second: it prints how to sign in and the feeds, the
// feeds fill with the first harvest's entry and then digests of the
// changes, and SIGINT stops it with exit code 0 and its database gone.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	t.Parallel()
	bin := buildTidings(t)
	addr := freeAddr(t)
	// serve --demo is the same command.
	cmd := exec.Command(bin, "serve", "--demo", "--addr", addr, "--demo-every", "1s")
	// Nothing of the environment reaches the demo's database.
	cmd.Env = cleanEnv("TIDINGS_DB=/nonexistent/tidings.db")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			cmd.Process.Kill()
			<-exited
		}
	}()

	dbLine := regexp.MustCompile(`The database is (\S+); it is removed when the demo stops`)
	var dbPath string
	for deadline := time.Now().Add(60 * time.Second); dbPath == ""; time.Sleep(50 * time.Millisecond) {
		if m := dbLine.FindStringSubmatch(stdout.String()); m != nil {
			dbPath = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo did not start in 60 s\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		}
	}
	out := stdout.String()
	base := "http://" + addr + "/"
	for _, want := range []string{"open " + base + " in a browser and sign in as \"demo\" with the password \"", base + "u/", "Lantern Garden (http://127.0.0.1:", base + public(t, dbPath, "sites/1.atom")} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo's instructions lack %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(dbPath); err != nil {
		t.Errorf("the demo's database: %v", err)
	}
	// A command beside the demo prints the addresses it serves, and says
	// where they came from.
	r := tidings(t, newEnv(t, "TIDINGS_BASE_URL", "", "TIDINGS_DB", dbPath), "feeds")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "\tfeed "+base+"feeds/") || strings.Contains(r.stdout, "127.0.0.1:8080") ||
		!strings.HasPrefix(r.stdout, "Feed addresses start with "+base+", where serve last listened on this database (") {
		t.Errorf("feeds --db of the demo's database:\n%s", r.stdout)
	}

	var f *gofeed.Feed
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var err error
		if f, err = gofeed.NewParser().ParseString(fetchBody(t, base+public(t, dbPath, "feeds/1.atom"))); err != nil {
			t.Fatal(err)
		}
		if len(f.Items) >= 3 || time.Now().After(deadline) {
			break
		}
	}
	if len(f.Items) < 3 {
		t.Fatalf("after 60 s the sample site's feed has %d entries, want the first harvest's and digests of changes\nstderr:\n%s", len(f.Items), stderr.String())
	}
	if first := f.Items[len(f.Items)-1]; first.Title != "Now following Lantern Garden: 7 pages" {
		t.Errorf("the oldest entry is %q, want the first harvest's\nstdout:\n%s", first.Title, out)
	}
	if newest := f.Items[0]; !strings.Contains(newest.Title, "updated on Lantern Garden") || !strings.Contains(newest.Content, "(edit ") {
		t.Errorf("the newest entry %q does not tell of the pages changed:\n%s", newest.Title, newest.Content)
	}
	if f.Title != "Lantern Garden — changes" {
		t.Errorf("feed title %q", f.Title)
	}
	checkDemoMailbox(t, base, out)

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("the demo exited with %v after SIGINT\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the demo still runs 20 s after SIGINT\nstderr:\n%s", stderr.String())
	}
	if _, err := os.Stat(dbPath); !os.IsNotExist(err) {
		t.Errorf("the demo's database is still there after it stopped: %v", err)
	}
	if logs := stderr.String(); !strings.Contains(logs, `msg=stopping reason="received SIGINT"`) || !strings.Contains(logs, "loopback and private addresses is allowed") {
		t.Errorf("the demo's log:\n%s", logs)
	}
}

// TestDemoAddressInUse: a demo whose address is taken says so, and how to
// give another, before it sets anything up.
func TestDemoAddressInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := tidings(t, newEnv(t), "demo", "--addr", ln.Addr().String())
	if r.code != 1 || !strings.Contains(r.stderr, "cannot listen on "+ln.Addr().String()) || !strings.Contains(r.stderr, "--addr") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// checkDemoMailbox signs in as the demo account, with the password the
// demo printed, and reads the demo's mailbox page until it holds a
// digest e-mail and a push of the sample sites' changes.
func checkDemoMailbox(t *testing.T, base, instructions string) {
	t.Helper()
	if !strings.Contains(instructions, "arrive in the demo's own mailbox:\n  "+base+"demo/mailbox\n") {
		t.Errorf("the demo's instructions do not name its mailbox:\n%s", instructions)
	}
	m := regexp.MustCompile(`with the password "([^"]+)"`).FindStringSubmatch(instructions)
	if m == nil {
		t.Fatalf("no password in:\n%s", instructions)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	get := func(u string) string {
		t.Helper()
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	tok := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(get(base + "signin"))
	if tok == nil {
		t.Fatal("the sign-in page has no CSRF token")
	}
	resp, err := c.PostForm(base+"signin", url.Values{"csrf": {html.UnescapeString(tok[1])}, "name": {"demo"}, "password": {m[1]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	digest := regexp.MustCompile(`(?s)<li class="mail mail-email".*?<strong class="subject">tidings: \d+ changes? on [^<]+</strong>.*?Removed: .*?Added: `)
	push := regexp.MustCompile(`<li class="mail mail-push"[^>]*>\s*<details[^>]*>\s*<summary><span class="kind">Push</span> <strong class="subject">[^<:]+: \d+ pages? changed</strong>`)
	var page string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if page = html.UnescapeString(get(base + "demo/mailbox")); digest.MatchString(page) && push.MatchString(page) {
			return
		}
	}
	t.Errorf("after 60 s the demo's mailbox page shows no digest with what was removed and added, or no push:\n%s", page)
}
