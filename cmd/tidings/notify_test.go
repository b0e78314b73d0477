package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/internal/demosite"
)

// TestNotifyCommands: user notify sets a person's pushes and e-mail (e-mail
// refused while no SMTP server is set), and tidings notify sends the push
// of a harvest that changed pages, once.
func TestNotifyCommands(t *testing.T) {
	t.Parallel()
	sites, err := demosite.Start(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sites.Close)
	site := sites.Of(demosite.ResourceSync)
	var mu sync.Mutex
	var got []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Header.Get("X-Tidings-Signature")+" "+string(b))
		mu.Unlock()
	}))
	t.Cleanup(hook.Close)

	env := newEnv(t)
	mustSucceed(t, tidingsIn(t, env, "pw-of-ann-long\n", "user", "add", "ann"))
	mustSucceed(t, tidings(t, env, "follow", "--user", "ann", site.URL+"/"))

	r := tidings(t, env, "user", "notify", "ann", "--email", "ann@example.org")
	if r.code != 1 || !strings.Contains(r.stderr, "e-mail is off") {
		t.Errorf("user notify --email without an SMTP server: exit %d, stderr %q", r.code, r.stderr)
	}
	r = tidings(t, env, "user", "notify", "ann", "--push", "generic+"+hook.URL+"/hook", "--push-secret", "s3cret", "--every", "weekly")
	mustSucceed(t, r)
	for _, want := range []string{"ann: no e-mail digest", "push: generic+" + hook.URL + "/hook (everything followed)", "signed with the push secret"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("user notify says:\n%s\nwant %q", r.stdout, want)
		}
	}
	mail := newEnv(t, "TIDINGS_DB", env["TIDINGS_DB"], "TIDINGS_SMTP_URL", "smtp://127.0.0.1:9", "TIDINGS_MAIL_FROM", "tidings@tidings.test")
	r = tidings(t, mail, "user", "notify", "ann", "--email", "ann@example.org")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "waiting for confirmation: ann@example.org") {
		t.Errorf("user notify --email says:\n%s", r.stdout)
	}

	site.Change(2, time.Now())
	mustSucceed(t, tidings(t, env, "harvest", "--all"))
	r = tidings(t, env, "notify")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "E-mail is off") || !strings.Contains(r.stdout, "Queued 0 digest(s) and 1 push(es); sent 1 message(s)") {
		t.Errorf("notify says:\n%s", r.stdout)
	}
	mustSucceed(t, tidings(t, env, "notify", "--now"))
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || !strings.HasPrefix(got[0], "sha256=") {
		t.Fatalf("the webhook got %q, want one signed document", got)
	}
	var doc struct {
		Site    string
		Changes []struct{ URL string }
	}
	if err := json.Unmarshal([]byte(got[0][strings.Index(got[0], " ")+1:]), &doc); err != nil || doc.Site != site.URL+"/" || len(doc.Changes) != 2 {
		t.Errorf("the webhook got %s (%v)", got[0], err)
	}

	mustSucceed(t, tidings(t, env, "user", "notify", "ann", "--no-push", "generic+"+hook.URL+"/hook"))
	r = tidings(t, env, "user", "notify", "ann", "--no-push", "generic+"+hook.URL+"/hook")
	if r.code != 1 {
		t.Errorf("removing a push that is not there: exit %d", r.code)
	}
}
