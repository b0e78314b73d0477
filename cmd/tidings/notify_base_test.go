package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/internal/demosite"
)

// TestNotifyRefusesLinksNoReaderCanOpen: serve given only --addr
// remembers the address it made of it, which the other commands then use
// as a guess; tidings notify refuses to send messages whose links would
// lead to loopback, saying how to give the right address, and sends
// nothing at all; an address to listen on is refused whatever; and an
// operator whose readers are all on this machine may opt in.
func TestNotifyRefusesLinksNoReaderCanOpen(t *testing.T) {
	t.Parallel()
	sites, err := demosite.Start(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sites.Close)
	site := sites.Of(demosite.ResourceSync)
	var mu sync.Mutex
	var pushes []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		pushes = append(pushes, string(b))
		mu.Unlock()
	}))
	t.Cleanup(hook.Close)
	smtpAddr, smtpConns := countConnections(t)
	sent := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return len(pushes), int(smtpConns.Load())
	}

	env := newEnv(t, "TIDINGS_BASE_URL", "", "TIDINGS_SMTP_URL", "smtp://"+smtpAddr, "TIDINGS_MAIL_FROM", "tidings@tidings.test")
	mustSucceed(t, tidingsIn(t, env, "pw-of-ann-long\n", "user", "add", "ann"))
	mustSucceed(t, tidings(t, env, "follow", "--user", "ann", site.URL+"/"))
	// A confirmation e-mail, its link written with a right address, waits
	// in the outbox beside the push.
	mustSucceed(t, tidings(t, env, "user", "notify", "ann", "--email", "ann@example.org", "--base-url", "https://feeds.example.org/",
		"--push", "generic+"+hook.URL+"/hook"))

	served, _ := serveLogged(t, env, "--no-scheduler")
	r := tidings(t, env, "opml", "export", "--user", "ann")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, `xmlUrl="`+served+`feeds/`) || !strings.Contains(r.stderr, "warning: the feed addresses start with "+served+", which is a guess") {
		t.Errorf("an export after serve --addr alone uses its address as a guess? stdout\n%s\nstderr\n%s", r.stdout, r.stderr)
	}

	site.Change(2, time.Now())
	mustSucceed(t, tidings(t, env, "harvest", "--all"))
	r = tidings(t, env, "notify")
	want := "tidings: nothing was sent: the links in messages would start with " + served + ", which only this machine reaches " +
		"(no --base-url was given here or to serve, so it is made of --addr, where serve listens). " +
		"Give the address readers reach this tidings at with --base-url (TIDINGS_BASE_URL), here or once to serve; " +
		"or, if every reader is on this machine, pass --allow-loopback-base-url.\n"
	if r.code != 2 || r.stderr != want || r.stdout != "" {
		t.Errorf("notify with serve's --addr as its base URL: exit %d, stdout %q, stderr\n%s\nwant\n%s", r.code, r.stdout, r.stderr, want)
	}
	r = tidings(t, env, "user", "notify", "ann", "--email", "ann@example.net")
	if r.code != 2 || !strings.Contains(r.stderr, "no confirmation link was queued: the links in messages would start with "+served+", which only this machine reaches") {
		t.Errorf("user notify --email with serve's --addr as its base URL: exit %d, stderr %s", r.code, r.stderr)
	}
	for _, base := range []string{"http://0.0.0.0:8080/", "http://[::]:8080/"} {
		r = tidings(t, env, "notify", "--base-url", base, "--allow-loopback-base-url")
		if r.code != 2 || !strings.Contains(r.stderr, "nothing was sent: the links in messages would start with "+base+", an address to listen on that no reader can open. Give") ||
			strings.Contains(r.stderr, "pass --allow-loopback-base-url") {
			t.Errorf("notify --base-url %s: exit %d, stderr %s", base, r.code, r.stderr)
		}
	}
	if p, m := sent(); p != 0 || m != 0 {
		t.Fatalf("refused, notify still sent %d push(es) and connected to the SMTP server %d time(s)", p, m)
	}

	r = tidings(t, env, "notify", "--allow-loopback-base-url")
	mustSucceed(t, r)
	mu.Lock()
	defer mu.Unlock()
	var doc struct {
		SitePage string `json:"site_page"`
	}
	if len(pushes) != 1 || json.Unmarshal([]byte(pushes[0]), &doc) != nil || !strings.HasPrefix(doc.SitePage, served+"site/") {
		t.Errorf("notify --allow-loopback-base-url pushed %q, want one push linking under %s", pushes, served)
	}
	if smtpConns.Load() == 0 {
		t.Error("notify --allow-loopback-base-url did not try to send the waiting e-mail")
	}
}

// TestLinkBaseProblem: the base URLs no reader elsewhere can open are
// told apart from those that may be right, a private network's included.
func TestLinkBaseProblem(t *testing.T) {
	for base, want := range map[string]string{
		"https://feeds.example.org/":  "",
		"http://tidings.test/":        "",
		"http://192.168.1.10:8080/":   "",
		"http://[2001:db8::1]:8080/":  "",
		"http://127.0.0.1:8080/":      "loopback",
		"http://127.1.2.3/":           "loopback",
		"http://[::1]:8080/":          "loopback",
		"http://[::ffff:127.0.0.1]/":  "loopback",
		"http://localhost:8080/":      "loopback",
		"http://LocalHost./":          "loopback",
		"http://tidings.localhost/":   "loopback",
		"http://0.0.0.0:8080/":        "unspecified",
		"http://[::]:8080/":           "unspecified",
		"http://:8080/":               "no host",
		"http://[::ffff:0.0.0.0]:80/": "unspecified",
	} {
		why, loopback := linkBaseProblem(base)
		got := ""
		switch {
		case loopback:
			got = "loopback"
		case strings.Contains(why, "listen"):
			got = "unspecified"
		case why != "":
			got = "no host"
		}
		if got != want {
			t.Errorf("linkBaseProblem(%q) = %q, %v; want %s", base, why, loopback, want)
		}
	}
}

// countConnections listens on loopback, closing every connection at
// once; it returns the address and the count of connections made.
func countConnections(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), &n
}
