package web

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feeds"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/metrics"
)

// TestCachedAnswersAreTheRenderedOnes: the answer to a feed request the
// cache serves (the second) is the rendered one's, headers and all, with
// and without a path prefix, conditional or not, and for HEAD.
func TestCachedAnswersAreTheRenderedOnes(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	token := userToken(t, fx.store, signIn(t, fx.store, "ann"))
	paths := allFeedPaths(t, fx.store)
	for _, f := range feeds.Formats {
		paths = append(paths, "/u/"+token+"."+f.Ext(), "/u/"+token+"."+f.Ext()+"?entries=page")
	}
	for _, base := range []string{testBase, "https://example.org/tidings/"} {
		s, err := New(fx.store, Options{BaseURL: base, Metrics: metrics.New()})
		if err != nil {
			t.Fatal(err)
		}
		prefix := strings.TrimSuffix(s.base.Path, "/")
		for _, p := range paths {
			p = prefix + p
			first := request(t, s, http.MethodGet, p)
			for _, header := range [][]string{nil, {"If-None-Match", first.Header().Get("ETag")}, {"Accept-Encoding", "gzip"}} {
				want := request(t, s.echo, http.MethodGet, p, header...)
				got := request(t, s, http.MethodGet, p, header...)
				if got.Code != want.Code || got.Body.String() != want.Body.String() || !sameHeaders(got.Header(), want.Header()) {
					t.Errorf("GET %s %v from the cache: %d %v, rendered: %d %v", p, header, got.Code, got.Header(), want.Code, want.Header())
				}
			}
			// The recorder keeps a HEAD's body, which net/http drops.
			if head := request(t, s, http.MethodHead, p); head.Code != http.StatusOK || !sameHeaders(head.Header(), first.Header()) {
				t.Errorf("HEAD %s from the cache: %d %v; want the GET's headers %v", p, head.Code, head.Header(), first.Header())
			}
		}
	}
}

// sameHeaders compares headers but for Date, and Cache-Control's max-age,
// which counts down.
func sameHeaders(a, b http.Header) bool {
	clean := func(h http.Header) http.Header {
		h = h.Clone()
		h.Del("Date")
		if m := maxAgePattern.FindStringSubmatch(h.Get("Cache-Control")); m != nil {
			h.Set("Cache-Control", m[1])
		}
		return h
	}
	a, b = clean(a), clean(b)
	return slices.Equal(slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b))) &&
		maps.EqualFunc(a, b, slices.Equal)
}

// TestFeedShowsAnotherProcessHarvest: a harvest stored through another
// connection to the database, as `tidings harvest` beside serve does,
// reaches the feeds the cache answered before it, within
// db.OtherWritersDelay.
func TestFeedShowsAnotherProcessHarvest(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	h := fx.server(t)
	p := public(t, fx.store, "/feeds/1.atom")
	before := request(t, h, http.MethodGet, p)
	if again := request(t, h, http.MethodGet, p); again.Body.String() != before.Body.String() {
		t.Fatal("the feed changed with nothing harvested")
	}

	other, err := db.Open(t.Context(), fx.path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	current := getDoc(t, fx.url("/shrine/changes-current.xml"))
	fx.site.Set("/shrine/changes-current.xml", strings.Replace(current, "</urlset>",
		`<url><loc>{{.Base}}/shrine/elsewhere.html</loc><rs:md change="created" datetime="{{ago "1h"}}"/></url></urlset>`, 1))
	site, err := other.SiteByURL(t.Context(), fx.site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	client := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-test"})
	if _, err := harvest.New(client, other, harvest.Options{}).HarvestSite(t.Context(), site); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(10 * db.OtherWritersDelay)
	for {
		rec := request(t, h, http.MethodGet, p)
		if strings.Contains(rec.Body.String(), "elsewhere.html") {
			if rec.Header().Get("ETag") == before.Header().Get("ETag") {
				t.Error("the feed changed and kept its ETag")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s after another process's harvest: still without its change", 10*db.OtherWritersDelay)
		}
		time.Sleep(db.OtherWritersDelay / 4)
	}
}
