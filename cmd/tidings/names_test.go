package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSiteNamedByItsHomePage: a site whose change information names
// nothing (no describedby) is named by its home page's <title>, and a
// collection by its page's; the names reach feeds and OPML.
func TestSiteNamedByItsHomePage(t *testing.T) {
	t.Parallel()
	var base string
	at := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)
	docs := map[string]string{
		"/.well-known/resourcesync": `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="description"/>
<url><loc>{base}/capabilitylist.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="{base}/"/></url>
<url><loc>{base}/ferns/capabilitylist.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="{base}/ferns/"/></url></urlset>`,
		"/ferns/capabilitylist.xml": `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="describes" href="{base}/ferns/"/><rs:md capability="capabilitylist"/>
<url><loc>{base}/changelist.xml</loc><rs:md capability="changelist"/></url></urlset>`,
		"/ferns/": `<!doctype html><html><head><title>The fern corner</title></head><body><p>Ferns.</p></body></html>`,
		"/capabilitylist.xml": `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="describes" href="{base}/"/><rs:md capability="capabilitylist"/>
<url><loc>{base}/changelist.xml</loc><rs:md capability="changelist"/></url></urlset>`,
		"/changelist.xml": `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="changelist"/>
<url><loc>{base}/ferns.html</loc><rs:md change="updated" datetime="` + at + `"/></url></urlset>`,
		"/":           `<!doctype html><html><head><title> Moss &amp; Fern </title></head><body><a href="/ferns.html">Ferns</a></body></html>`,
		"/ferns.html": `<!doctype html><html><head><title>Ferns</title></head><body><p>Ferns in the shade.</p></body></html>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".xml") || strings.HasPrefix(r.URL.Path, "/.well-known/") {
			w.Header().Set("Content-Type", "application/xml")
		} else {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		fmt.Fprint(w, strings.ReplaceAll(doc, "{base}", base))
	}))
	defer srv.Close()
	base = srv.URL

	env := newEnv(t)
	mustSucceed(t, tidingsIn(t, env, "ann-password-1\n", "user", "add", "ann"))
	mustSucceed(t, tidings(t, env, "follow", srv.URL))
	r := tidings(t, env, "feeds", "--json")
	mustSucceed(t, r)
	titles := map[string]string{}
	for _, l := range lines(t, r.stdout) {
		var fi feedInfo
		if err := json.Unmarshal([]byte(l), &fi); err != nil {
			t.Fatal(err)
		}
		titles[strings.TrimPrefix(fi.Key, srv.URL)] = fi.Title
	}
	if titles["/"] != "Moss & Fern" || titles["/ferns/"] != "The fern corner" {
		t.Errorf("collections titled %q; want the whole site's by its home page, the other by its page", titles)
	}
	r = tidings(t, env, "opml", "export", "--user", "ann")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, `<outline text="Moss &amp; Fern">`) {
		t.Errorf("the site is not named by its home page in the OPML:\n%s", r.stdout)
	}
	// The feeds of one entry per changed page, when asked.
	r = tidings(t, env, "opml", "export", "--user", "ann", "--entries", "page")
	mustSucceed(t, r)
	if n := strings.Count(r.stdout, `.atom?entries=page"`); n != len(titles) || strings.Count(r.stdout, `.atom"`) != 0 {
		t.Errorf("--entries page: %d per-page feeds of %d collections:\n%s", n, len(titles), r.stdout)
	}
	if r = tidings(t, env, "opml", "export", "--user", "ann", "--entries", "pages"); r.code != 2 {
		t.Errorf("--entries pages: exit code %d, want 2 (usage)", r.code)
	}
}
