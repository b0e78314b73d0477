package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tidings/feeds"
)

// request runs one request through h with the given headers.
func request(t *testing.T, h http.Handler, method, path string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var maxAgePattern = regexp.MustCompile(`^(public|private), max-age=(\d+)$`)

func TestConditionalGET(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	h := fx.server(t)
	paths := allFeedPaths(t, fx.store)

	etags := map[string]string{}
	for _, p := range paths {
		rec := request(t, h, http.MethodGet, p)
		etag, lastMod := rec.Header().Get("ETag"), rec.Header().Get("Last-Modified")
		if rec.Code != http.StatusOK || !strings.HasPrefix(etag, `W/"`) || lastMod == "" {
			t.Fatalf("GET %s: %d, ETag %q, Last-Modified %q", p, rec.Code, etag, lastMod)
		}
		etags[p] = etag
		m := maxAgePattern.FindStringSubmatch(rec.Header().Get("Cache-Control"))
		if m == nil || m[1] != "public" {
			t.Fatalf("GET %s: Cache-Control %q", p, rec.Header().Get("Cache-Control"))
		}
		// The site was just harvested; the next harvest is a day away, give
		// or take the scheduler's jitter of a tenth, and max-age is at most
		// a day.
		if age, _ := strconv.Atoi(m[2]); age < 21*3600 || age > 24*3600 {
			t.Errorf("GET %s: max-age %d, want about a day (until the next harvest)", p, age)
		}
		if !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") {
			t.Errorf("GET %s: Vary %q", p, rec.Header().Get("Vary"))
		}
		for _, cond := range [][]string{{"If-None-Match", etag}, {"If-None-Match", `"other", ` + strings.TrimPrefix(etag, "W/")}, {"If-Modified-Since", lastMod}} {
			rec := request(t, h, http.MethodGet, p, cond...)
			if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 || rec.Header().Get("ETag") != etag {
				t.Errorf("GET %s with %s: %d, %d bytes, ETag %q; want 304, no body, the same ETag", p, cond[0], rec.Code, rec.Body.Len(), rec.Header().Get("ETag"))
			}
		}
		if rec := request(t, h, http.MethodGet, p, "If-None-Match", `W/"other"`, "If-Modified-Since", lastMod); rec.Code != http.StatusOK {
			t.Errorf("GET %s with a stale ETag: %d; If-None-Match outranks If-Modified-Since", p, rec.Code)
		}
		before, _ := http.ParseTime(lastMod)
		if rec := request(t, h, http.MethodGet, p, "If-Modified-Since", before.Add(-time.Second).Format(http.TimeFormat)); rec.Code != http.StatusOK {
			t.Errorf("GET %s modified since a second before: %d", p, rec.Code)
		}
	}

	// Gzip when asked, with the same validators; HEAD answers too.
	plain := request(t, h, http.MethodGet, public(t, fx.store, "/feeds/1.atom"))
	zipped := request(t, h, http.MethodGet, public(t, fx.store, "/feeds/1.atom"), "Accept-Encoding", "br;q=1.0, gzip;q=0.8")
	if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") != plain.Header().Get("ETag") {
		t.Fatalf("gzip: Content-Encoding %q, ETag %q", zipped.Header().Get("Content-Encoding"), zipped.Header().Get("ETag"))
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, plain.Body.Bytes()) || zipped.Body.Len() >= plain.Body.Len() {
		t.Errorf("the gzip'd feed (%d bytes) does not inflate to the plain one (%d bytes)", zipped.Body.Len(), plain.Body.Len())
	}
	if rec := request(t, h, http.MethodGet, public(t, fx.store, "/feeds/1.atom"), "Accept-Encoding", "gzip;q=0"); rec.Header().Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 was answered gzip'd")
	}
	if rec := request(t, h, http.MethodHead, public(t, fx.store, "/feeds/1.rss")); rec.Code != http.StatusOK || rec.Header().Get("ETag") != etags[public(t, fx.store, "/feeds/1.rss")] {
		t.Errorf("HEAD: %d, ETag %q", rec.Code, rec.Header().Get("ETag"))
	}

	// A harvest that adds nothing keeps every ETag.
	fx.harvestAgain(t)
	for _, p := range paths {
		rec := request(t, h, http.MethodGet, p, "If-None-Match", etags[p])
		if rec.Code != http.StatusNotModified || rec.Header().Get("ETag") != etags[p] {
			t.Errorf("after a harvest that added nothing, GET %s: %d, ETag %q, was %q", p, rec.Code, rec.Header().Get("ETag"), etags[p])
		}
	}

	// A harvest that adds a change to the shrine gives its feeds and the
	// site's a new ETag, and leaves the gallery's alone.
	current := getDoc(t, fx.url("/shrine/changes-current.xml"))
	fx.site.Set("/shrine/changes-current.xml", strings.Replace(current, "</urlset>",
		`<url><loc>{{.Base}}/shrine/new.html</loc><rs:md change="created" datetime="{{ago "1h"}}"/></url></urlset>`, 1))
	fx.harvestAgain(t)
	for _, p := range paths {
		rec := request(t, h, http.MethodGet, p, "If-None-Match", etags[p])
		if strings.HasPrefix(p, public(t, fx.store, "/feeds/2")) {
			if rec.Code != http.StatusNotModified {
				t.Errorf("GET %s of the unchanged collection: %d, want 304", p, rec.Code)
			}
			continue
		}
		if rec.Code != http.StatusOK || rec.Header().Get("ETag") == etags[p] || !strings.Contains(rec.Body.String(), "new.html") {
			t.Errorf("after a new change, GET %s: %d, ETag %q (was %q)", p, rec.Code, rec.Header().Get("ETag"), etags[p])
		}
	}
}

// TestUserFeedIsPrivatelyCached: the secret address never goes into shared
// caches.
func TestUserFeedIsPrivatelyCached(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	token := userToken(t, fx.store, signIn(t, fx.store, "ann"))
	h := fx.server(t)
	for _, f := range feeds.Formats {
		rec := request(t, h, http.MethodGet, "/u/"+token+"."+f.Ext())
		if m := maxAgePattern.FindStringSubmatch(rec.Header().Get("Cache-Control")); rec.Code != http.StatusOK || m == nil || m[1] != "private" {
			t.Errorf("user feed as %s: %d, Cache-Control %q", f, rec.Code, rec.Header().Get("Cache-Control"))
		}
		if rec.Header().Get("X-Robots-Tag") != "noindex" {
			t.Errorf("user feed as %s: X-Robots-Tag %q", f, rec.Header().Get("X-Robots-Tag"))
		}
		if rec := request(t, h, http.MethodGet, "/u/nobody."+f.Ext()); rec.Code != http.StatusNotFound {
			t.Errorf("unknown token as %s: %d", f, rec.Code)
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "deflate, gzip;q=0.5": true, "gzip;q=0": false, "gzip; q=0.0": false,
		"x-gzip": true, "br": false, "*": false, "identity": false,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", header, got, want)
		}
	}
}

func TestFeedMaxAge(t *testing.T) {
	s := &Server{}
	now := time.Now()
	for _, tt := range []struct {
		next *time.Time
		want time.Duration
	}{
		{nil, time.Minute},
		{ptr(now.Add(-time.Hour)), time.Minute},
		{ptr(now.Add(10 * time.Second)), time.Minute},
		{ptr(now.Add(3*time.Hour + 30*time.Second)), 3*time.Hour + 29*time.Second},
		{ptr(now.Add(72 * time.Hour)), 24 * time.Hour},
	} {
		got := s.feedMaxAge(tt.next)
		if got < tt.want || got > tt.want+time.Second {
			t.Errorf("feedMaxAge(%v) = %v, want %v", tt.next, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
