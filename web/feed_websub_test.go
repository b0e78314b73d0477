package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"tidings/feedbuild"
	"tidings/feeds"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/websub"
)

// pingHub is a WebSub hub on loopback that records the topics of publish
// pings.
type pingHub struct {
	*httptest.Server
	mu     sync.Mutex
	topics []string
}

func newPingHub(t *testing.T) *pingHub {
	t.Helper()
	h := &pingHub{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.ParseForm() != nil || r.PostForm.Get("hub.mode") != "publish" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.topics = append(h.topics, r.PostForm["hub.url"]...)
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.Close)
	return h
}

// take returns the topics pinged since the last call, sorted.
func (h *pingHub) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.topics
	h.topics = nil
	slices.Sort(out)
	return out
}

// feedTopics lists a feed's topics: every format, both entry modes.
func feedTopics(base string) []string {
	var out []string
	for _, f := range feeds.Formats {
		u := testBase + base + "." + f.Ext()
		out = append(out, u, u+"?entries=page")
	}
	return out
}

// TestWebSubPingsChangedFeeds: after a harvest, the hub receives exactly
// one publish ping per changed feed, and none for the others.
func TestWebSubPingsChangedFeeds(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	hub := newPingHub(t)
	token := userToken(t, fx.store, signIn(t, fx.store, "ann"))
	srv, err := New(fx.store, Options{BaseURL: testBase, HubURL: hub.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	build, err := feedbuild.New(fx.store, feedbuild.Options{BaseURL: testBase})
	if err != nil {
		t.Fatal(err)
	}
	client := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-test"})
	pub := websub.NewPublisher(client, hub.URL+"/", websub.PublisherOptions{})
	var hookErr error
	harvester := harvest.New(client, fx.store, harvest.Options{
		AfterHarvest: func(ctx context.Context, rep *harvest.SiteReport) {
			var done []feedbuild.Harvested
			for _, cr := range rep.Collections {
				done = append(done, feedbuild.Harvested{Collection: cr.Collection, Run: cr.Run})
			}
			topics, err := build.ChangedFeeds(ctx, rep.Site.ID, done)
			if err == nil {
				err = pub.Publish(ctx, topics)
			}
			hookErr = err
		},
	})
	site, err := fx.store.SiteByID(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}

	// Every feed names the hub and itself.
	for _, p := range allFeedPaths(t, fx.store) {
		links := rels(anyFeed(t, h, p))
		self := testBase + strings.TrimPrefix(p, "/")
		if links["self"] != self {
			t.Errorf("%s: self %q", p, links["self"])
		}
		body := serve(t, h, p).Body.String()
		want := map[feeds.Format]string{
			feeds.Atom: `<link href="` + hub.URL + `/" rel="hub"></link>`,
			feeds.RSS:  `<atom:link href="` + hub.URL + `/" rel="hub"></atom:link>`,
			feeds.JSON: `"type": "WebSub",` + "\n      " + `"url": "` + hub.URL + `/"`,
		}[formatOf(t, p)]
		if !strings.Contains(body, want) {
			t.Errorf("%s does not name the hub with %s", p, want)
		}
	}

	if _, err := harvester.HarvestSite(t.Context(), site); err != nil || hookErr != nil {
		t.Fatalf("harvest: %v; hook: %v", err, hookErr)
	}
	if got := hub.take(); len(got) != 0 {
		t.Errorf("a harvest that added nothing pinged %q", got)
	}

	current := getDoc(t, fx.url("/shrine/changes-current.xml"))
	fx.site.Set("/shrine/changes-current.xml", strings.Replace(current, "</urlset>",
		`<url><loc>{{.Base}}/shrine/new.html</loc><rs:md change="created" datetime="{{ago "1h"}}"/></url></urlset>`, 1))
	if _, err := harvester.HarvestSite(t.Context(), site); err != nil || hookErr != nil {
		t.Fatalf("harvest: %v; hook: %v", err, hookErr)
	}
	want := slices.Concat(feedTopics(public(t, fx.store, "feeds/1")), feedTopics(public(t, fx.store, "sites/1")), feedTopics("u/"+token))
	slices.Sort(want)
	if got := hub.take(); !slices.Equal(got, want) {
		t.Errorf("after a new change in collection 1 the hub received\n%q\nwant one ping each for\n%q", got, want)
	}

	if _, err := harvester.HarvestSite(t.Context(), site); err != nil || hookErr != nil {
		t.Fatalf("harvest: %v; hook: %v", err, hookErr)
	}
	if got := hub.take(); len(got) != 0 {
		t.Errorf("harvesting again pinged %q", got)
	}
}

// TestNoHubNoHubLinks: without --websub-hub no feed names a hub.
func TestNoHubNoHubLinks(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	h := fx.server(t)
	for _, p := range allFeedPaths(t, fx.store) {
		body := serve(t, h, p).Body.String()
		if strings.Contains(body, `rel="hub"`) || strings.Contains(body, `"hubs"`) {
			t.Errorf("%s names a hub", p)
		}
	}
}
