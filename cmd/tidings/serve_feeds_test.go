package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestFeedFlagsAreChecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"no entries", nil, []string{"serve", "--feed-entries", "0"}, "--feed-entries must be between 1 and 1000"},
		{"too many entries", []string{"TIDINGS_FEED_ENTRIES", "5000"}, []string{"serve"}, "--feed-entries must be between 1 and 1000"},
		{"entries not a number", []string{"TIDINGS_FEED_ENTRIES", "many"}, []string{"serve"}, "TIDINGS_FEED_ENTRIES"},
		{"failing after nothing", nil, []string{"serve", "--failing-after", "0s"}, "--failing-after must be positive"},
		{"failing after not a duration", []string{"TIDINGS_FAILING_AFTER", "3 days"}, []string{"serve"}, "TIDINGS_FAILING_AFTER"},
		{"hub not http", []string{"TIDINGS_WEBSUB_HUB", "ftp://hub.example/"}, []string{"serve"}, `--websub-hub "ftp://hub.example/" is not an http or https URL`},
		{"harvest hub not http", nil, []string{"harvest", "--websub-hub", "hub.example"}, `--websub-hub "hub.example" is not an http or https URL`},
		{"harvest failing after nothing", []string{"TIDINGS_FAILING_AFTER", "-1h"}, []string{"harvest", "--all"}, "--failing-after must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tidings(t, newEnv(t, tt.env...), tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
	r := tidings(t, newEnv(t), "serve", "--help")
	for _, want := range []string{"--feed-entries (TIDINGS_FEED_ENTRIES)", "--failing-after (TIDINGS_FAILING_AFTER)", "--websub-hub (TIDINGS_WEBSUB_HUB)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, r.stderr)
		}
	}
	r = tidings(t, newEnv(t), "harvest", "--help")
	for _, want := range []string{"--failing-after (TIDINGS_FAILING_AFTER)", "--websub-hub (TIDINGS_WEBSUB_HUB)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("harvest --help lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestServePingsTheHub runs serve with --websub-hub: the scheduler's
// harvest that finds a new change pings the hub once for each feed it
// changed, and serve answers feeds with those settings.
func TestServePingsTheHub(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var topics []string
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ParseForm() == nil && r.PostForm.Get("hub.mode") == "publish" {
			mu.Lock()
			topics = append(topics, r.PostForm["hub.url"]...)
			mu.Unlock()
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer hub.Close()

	site := newSite(t)
	addr := freeAddr(t)
	env := newEnv(t, "TIDINGS_INTERVAL", "1s", "TIDINGS_FEED_ENTRIES", "1", "TIDINGS_WEBSUB_HUB", hub.URL+"/hub")
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	current := strings.Replace(fetchBody(t, site.URL+"/shrine/changes-current.xml"), "</urlset>",
		`<url><loc>{{.Base}}/shrine/new.html</loc><rs:md change="created" datetime="{{ago "1h"}}"/></url></urlset>`, 1)
	site.Set("/shrine/changes-current.xml", current)
	time.Sleep(1100 * time.Millisecond) // the site is due again

	ctx, cancel := context.WithCancel(t.Context())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr}, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	}()
	var want []string
	for _, base := range []string{public(t, env["TIDINGS_DB"], "feeds/1"), public(t, env["TIDINGS_DB"], "sites/1")} {
		for _, ext := range []string{"atom", "rss", "json"} {
			u := testBase + base + "." + ext
			want = append(want, u, u+"?entries=page")
		}
	}
	slices.Sort(want)
	deadline := time.Now().Add(30 * time.Second)
	var got []string
	for time.Now().Before(deadline) {
		mu.Lock()
		got = slices.Clone(topics)
		mu.Unlock()
		if len(got) >= len(want) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the hub received\n%q\nwant\n%q\nstderr:\n%s", got, want, stderr.String())
	}

	body := fetchBody(t, "http://"+addr+public(t, env["TIDINGS_DB"], "/feeds/1.atom"))
	if !strings.Contains(body, `href="`+hub.URL+`/hub" rel="hub"`) || strings.Count(body, "<entry>") != 1 || !strings.Contains(body, `rel="next"`) {
		t.Errorf("the feed does not carry the hub, one entry and a next page:\n%s", body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(topics) != len(want) {
		t.Errorf("the hub received %d pings in all, want %d: %q", len(topics), len(want), topics)
	}
}

func fetchBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %s", url, err, resp.Status)
	}
	return string(b)
}
