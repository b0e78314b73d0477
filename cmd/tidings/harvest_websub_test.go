package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"tidings/db"
	"tidings/internal/fixturesite"
)

// publishHub is a WebSub hub on loopback that records each POST it
// receives: its hub.mode and its hub.url values.
type publishHub struct {
	*httptest.Server
	mu    sync.Mutex
	posts []hubPost
}

type hubPost struct {
	mode string
	urls []string
}

func newPublishHub(t *testing.T) *publishHub {
	t.Helper()
	h := &publishHub{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.ParseForm() != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.posts = append(h.posts, hubPost{r.PostForm.Get("hub.mode"), r.PostForm["hub.url"]})
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.Close)
	return h
}

// take returns the topics of the publish pings received since the last
// call, sorted, failing on any POST that is not one publish ping of one
// topic.
func (h *publishHub) take(t *testing.T) []string {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var topics []string
	for _, p := range h.posts {
		if p.mode != "publish" || len(p.urls) != 1 {
			t.Errorf("the hub received hub.mode=%q with hub.url %q, want one publish ping of one topic", p.mode, p.urls)
			continue
		}
		topics = append(topics, p.urls[0])
	}
	h.posts = nil
	slices.Sort(topics)
	return topics
}

// addChange adds a created page to the fixture site's current change list.
func addChange(t *testing.T, site *fixturesite.Site, page, ago string) {
	t.Helper()
	current := strings.Replace(fetchBody(t, site.URL+"/shrine/changes-current.xml"), "</urlset>",
		`<url><loc>{{.Base}}/shrine/`+page+`</loc><rs:md change="created" datetime="{{ago "`+ago+`"}}"/></url></urlset>`, 1)
	site.Set("/shrine/changes-current.xml", current)
}

// TestHarvestPingsTheHub: `tidings harvest --all` with --websub-hub (or
// TIDINGS_WEBSUB_HUB) pings the hub once per feed a new change reached,
// in every format and entry mode, before it exits; a harvest that adds
// nothing pings nothing.
func TestHarvestPingsTheHub(t *testing.T) {
	t.Parallel()
	hub := newPublishHub(t)
	site := newSite(t)
	env := newEnv(t)
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"user", "add", "ann"}, func(k string) string { return env[k] },
		strings.NewReader("a long enough password\n"), &stdout, &stderr); err != nil {
		t.Fatalf("user add: %v\n%s", err, stderr.String())
	}
	mustSucceed(t, tidings(t, env, "follow", "--user", "ann", site.URL))
	token := feedToken(t, env, "ann")
	want := func(bases ...string) []string {
		var out []string
		for _, base := range bases {
			for _, ext := range []string{"atom", "rss", "json"} {
				u := testBase + base + "." + ext
				out = append(out, u, u+"?entries=page")
			}
		}
		slices.Sort(out)
		return out
	}
	harvestAll := func(env map[string]string, flags ...string) {
		t.Helper()
		r := tidings(t, env, append([]string{"harvest", "--all"}, flags...)...)
		mustSucceed(t, r)
		if r.stderr != "" {
			t.Errorf("harvest wrote to stderr:\n%s", r.stderr)
		}
	}

	harvestAll(env, "--websub-hub", hub.URL+"/hub")
	if got := hub.take(t); len(got) != 0 {
		t.Errorf("a harvest that added nothing pinged %q", got)
	}

	addChange(t, site, "new.html", "1h")
	harvestAll(env, "--websub-hub", hub.URL+"/hub")
	changed := want(public(t, env["TIDINGS_DB"], "feeds/1"), public(t, env["TIDINGS_DB"], "sites/1"), "u/"+token)
	if got := hub.take(t); !slices.Equal(got, changed) {
		t.Errorf("after a new change in collection 1 the hub received\n%q\nwant one ping each for\n%q", got, changed)
	}

	harvestAll(env, "--websub-hub", hub.URL+"/hub")
	if got := hub.take(t); len(got) != 0 {
		t.Errorf("harvesting again pinged %q", got)
	}

	addChange(t, site, "newer.html", "30m")
	harvestAll(newEnv(t, "TIDINGS_DB", env["TIDINGS_DB"], "TIDINGS_WEBSUB_HUB", hub.URL+"/hub"))
	if got := hub.take(t); !slices.Equal(got, changed) {
		t.Errorf("with TIDINGS_WEBSUB_HUB, after another change the hub received\n%q\nwant\n%q", got, changed)
	}

	addChange(t, site, "unpinged.html", "10m")
	harvestAll(env)
	if got := hub.take(t); len(got) != 0 {
		t.Errorf("a harvest without --websub-hub pinged %q", got)
	}
}

// feedToken reads the token of a user's aggregate feed from the database.
func feedToken(t *testing.T, env map[string]string, name string) string {
	t.Helper()
	store, err := db.Open(t.Context(), env["TIDINGS_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	u, err := store.UserByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u.FeedToken
}
