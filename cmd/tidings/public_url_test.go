package main

import (
	"strings"
	"testing"
)

// TestOPMLExportUsesTheAddressServeWasGiven: without --base-url, an OPML
// export first warns that its addresses are a guess; once serve has been
// started with --base-url, it and the other commands that print feed
// addresses use that one, and an address given still wins.
func TestOPMLExportUsesTheAddressServeWasGiven(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t, "TIDINGS_BASE_URL", "")
	mustSucceed(t, tidingsIn(t, env, "pw-of-ann-long\n", "user", "add", "ann"))
	mustSucceed(t, tidings(t, env, "follow", site.URL))

	r := tidings(t, env, "opml", "export", "--user", "ann")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, `xmlUrl="http://127.0.0.1:8080/feeds/`) ||
		!strings.Contains(r.stderr, "warning: the feed addresses start with http://127.0.0.1:8080/, which is a guess") {
		t.Errorf("an export with no public address known: stdout\n%s\nstderr\n%s", r.stdout, r.stderr)
	}

	const public = "https://feeds.example.org/tidings/"
	serveLogged(t, env, "--base-url", public)
	r = tidings(t, env, "opml", "export", "--user", "ann")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, `xmlUrl="`+public+`feeds/`) || strings.Contains(r.stdout, "127.0.0.1:8080") || r.stderr != "" {
		t.Errorf("an export after serve --base-url %s: stdout\n%s\nstderr\n%s", public, r.stdout, r.stderr)
	}
	r = tidings(t, env, "feeds")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, public+"feeds/") {
		t.Errorf("feeds after serve --base-url %s:\n%s", public, r.stdout)
	}
	r = tidings(t, env, "opml", "export", "--user", "ann", "--base-url", "https://other.example/")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, `xmlUrl="https://other.example/feeds/`) {
		t.Errorf("--base-url given does not win:\n%s", r.stdout)
	}
}
