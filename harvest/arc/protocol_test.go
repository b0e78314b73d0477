package arc_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
)

const jsonType = "application/json"

// shrinePages is a site with one page of each kind the issue names.
func shrinePages() []page {
	return []page{
		{"url": "/gallery.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true,
			"ai_summary": "Ink drawings of herons, updated weekly.", "ai_tags": []string{"art", "ink"},
			"ai_checksum": "sha256:g1", "ai_snapshot": map[string]any{"title": "The Gallery", "sections": []any{}}},
		{"url": "/about.html", "lastmod": "2026-01-02T00:00:00Z", "ai_indexable": true, "ai_summary": "Who draws here."},
		{"url": "/news.html", "ai_indexable": true, "ai_summary": "News, undated."},
		{"url": "/drafts.html", "lastmod": "2026-03-09T11:00:00Z", "ai_indexable": false, "ai_summary": "SECRET-DRAFTS"},
		{"url": "/members.html", "lastmod": "2026-03-09T11:00:00Z", "ai_indexable": true, "auth_required": true, "ai_summary": "SECRET-MEMBERS"},
		{"url": "/staging.html", "lastmod": "2026-03-09T11:00:00Z", "ai_indexable": true, "robots_directive": "noindex, nofollow", "ai_summary": "SECRET-STAGING"},
		{"lastmod": "2026-03-09T11:00:00Z", "ai_indexable": true, "ai_summary": "an entry without url"},
	}
}

var privatePaths = []string{"/drafts.html", "/members.html", "/staging.html"}

func TestARCFollowJSON(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	e.site.Set("/", "text/html", "<!doctype html><title>Heron Shrine</title>")
	e.site.Set("/.well-known/arc-sitemap.json", jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "", shrinePages()...))
	rep := e.follow("/")
	c := arcRun(t, rep)
	if c.Collection.Key != e.site.URL+"/.well-known/arc-sitemap.json" || c.Collection.Title != "Heron Shrine" {
		t.Errorf("collection: key %s title %q", c.Collection.Key, c.Collection.Title)
	}
	r := c.Run
	if r.Error != "" || r.Changes != 2 || r.Backfilled != 1 {
		t.Errorf("run: error %q changes %d backfilled %d; want the gallery and news in the feed, about.html as history", r.Error, r.Changes, r.Backfilled)
	}
	if !slices.Contains(r.Warnings, "in "+c.Collection.Key+", page 7 has no url; it was skipped") || len(r.Warnings) != 1 {
		t.Errorf("warnings = %q, want the one about the page without url", r.Warnings)
	}
	want := []string{
		"created /about.html 2026-01-02T00:00:00Z",
		"created /gallery.html 2026-03-09T10:00:00Z",
		"created /news.html 2026-03-10T06:00:00Z", // no lastmod: the sitemap's generated_at
	}
	if got := e.changeLines(); !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, ch := range e.changes() {
		if strings.HasSuffix(ch.URL, "/gallery.html") {
			if ch.Title != "The Gallery" || ch.Summary != "Ink drawings of herons, updated weekly." || !reflect.DeepEqual(ch.Tags, []string{"art", "ink"}) {
				t.Errorf("gallery change: title %q summary %q tags %q", ch.Title, ch.Summary, ch.Tags)
			}
		}
	}
	pages := e.pages(c.Collection.ID)
	if len(pages) != 3 || pages["/gallery.html"].Hash != "sha256:g1" {
		t.Errorf("pages stored: %+v; want gallery, about and news only", pages)
	}
	for _, p := range privatePaths {
		if _, ok := pages[p]; ok {
			t.Errorf("private page %s has a page row", p)
		}
	}
	// generated_at is today: only today's delta feed is probed; its 404 is
	// no error.
	if got := e.site.Requests("/arc-sitemap-deltas/2026-03-10.json"); !reflect.DeepEqual(got, []int{404}) {
		t.Errorf("today's delta feed: answers %v, want one 404", got)
	}
	assertPrivateAbsent(t, e)
}

// assertPrivateAbsent checks the store and the feeds for the private
// pages and their summaries.
func assertPrivateAbsent(t *testing.T, e *arcEnv) {
	t.Helper()
	for _, ch := range e.changes() {
		for _, p := range privatePaths {
			if strings.HasSuffix(ch.URL, p) {
				t.Errorf("a change row for private page %s: %+v", p, ch)
			}
		}
		if strings.Contains(ch.Summary, "SECRET") {
			t.Errorf("a private summary was stored: %+v", ch)
		}
	}
	for _, path := range []string{"", "?entries=page"} {
		body := atomOf(t, e, path)
		for _, p := range append(privatePaths, "SECRET") {
			if strings.Contains(body, p) {
				t.Errorf("feed%s mentions %s:\n%s", path, p, body)
			}
		}
	}
}

func TestARCFollowYAMLFromRobots(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	e.site.Set("/robots.txt", "text/plain", "User-agent: *\nSitemap: {{base}}/sitemap.xml\nSitemap: {{base}}/feeds/arc.yaml\n")
	e.site.Set("/feeds/arc.yaml", "application/yaml", `# written by hand
arc_sitemap_version: 2.1
site: {{base}}
generated_at: 2026-03-10 06:00:00 +01:00
pages:
  - url: {{base}}/zines.html
    lastmod: 2026-03-09 20:30
    ai_indexable: true
    ai_summary: no
    ai_tags: [on, off, zines]
  - url: {{base}}/diary.html
    lastmod: 2026-03-08
    ai_indexable: no
    ai_summary: SECRET-DIARY
`)
	rep := e.follow("/")
	c := arcRun(t, rep)
	if c.Collection.Key != e.site.URL+"/feeds/arc.yaml" {
		t.Errorf("key = %s", c.Collection.Key)
	}
	want := []string{"created /zines.html 2026-03-09T20:30:00Z"}
	if got := e.changeLines(); !reflect.DeepEqual(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
	ch := e.changes()[0]
	if ch.Summary != "no" || !reflect.DeepEqual(ch.Tags, []string{"on", "off", "zines"}) {
		t.Errorf("YAML yes/no words must stay strings: summary %q tags %q", ch.Summary, ch.Tags)
	}
	// ai_indexable: no is the string "no", as in JSON: the entry is
	// invalid, and is neither stored nor named.
	if len(c.Run.Warnings) != 1 || !strings.Contains(c.Run.Warnings[0], `page 2 has ai_indexable "no" (a string)`) {
		t.Errorf("warnings = %q", c.Run.Warnings)
	}
	for _, ch := range e.changes() {
		if strings.Contains(ch.URL, "diary") {
			t.Errorf("the diary was stored: %+v", ch)
		}
	}
	if strings.Contains(strings.Join(c.Run.Warnings, " "), "diary") {
		t.Errorf("a warning names the private page: %q", c.Run.Warnings)
	}
}

func TestARCFollowJSONLDPointer(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	e.site.Set("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>Docs</title>
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "Dataset", "name": "ARC Sitemap",
 "url": "{{base}}/data/site-index.json",
 "distribution": [{"@type": "DataDownload", "encodingFormat": "application/json"}]}
</script></head><body>Hello</body></html>`)
	e.site.Set("/data/site-index.json", jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "",
		page{"url": "/guide.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true}))
	rep := e.follow("/")
	if c := arcRun(t, rep); c.Collection.Key != e.site.URL+"/data/site-index.json" || c.Run.Changes != 1 {
		t.Errorf("collection %s, changes %d", c.Collection.Key, c.Run.Changes)
	}
}

func TestARCMalformedOnFollowStoresNothing(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	e.site.Set("/.well-known/arc-sitemap.json", jsonType, "{\n  \"arc_sitemap_version\": \"2.1\",\n  \"pages\": [\n    {\"url\": \"x\",}\n  ]\n}\n")
	_, err := e.h.Follow(context.Background(), e.site.URL)
	want := e.site.URL + "/.well-known/arc-sitemap.json is not an ARC sitemap: line 4: invalid JSON: invalid character '}' looking for beginning of object key string"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("follow: %v\nwant it to say %q", err, want)
	}
	if sites, _ := e.store.Sites(context.Background()); len(sites) != 0 {
		t.Errorf("sites stored: %+v", sites)
	}
}

func TestARCMalformedHarvestStoresNothing(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	const path = "/arc-sitemap.json"
	e.site.Set(path, jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "",
		page{"url": "/a.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true}))
	c := arcRun(t, e.follow("/"))
	before := e.changeLines()
	e.site.Set(path, jsonType, `{"arc_sitemap_version": "2.1", "site": "{{base}}", "generated_at": "2026-03-11T06:00:00Z",
"pages": [{"url": "{{base}}/b.html", "ai_indexable": true}, ]}`)
	e.clock.Set(ts("2026-03-11T12:00:00Z"))
	r := arcRun(t, e.harvest()).Run
	want := "the ARC sitemap " + e.site.URL + path + " is not valid: line 2: invalid JSON: invalid character ']' looking for beginning of value"
	if r.Error != want || r.Changes != 0 {
		t.Errorf("run: error %q, changes %d\nwant %q", r.Error, r.Changes, want)
	}
	if got := e.changeLines(); !reflect.DeepEqual(got, before) {
		t.Errorf("changes after a malformed sitemap: %q, want %q", got, before)
	}
	if p := e.pages(c.Collection.ID); len(p) != 1 {
		t.Errorf("pages after a malformed sitemap: %+v", p)
	}
	// Fixed, it is read again in full (no validators were kept).
	e.site.Set(path, jsonType, e.site.sitemapJSON(ts("2026-03-11T07:00:00Z"), "",
		page{"url": "/a.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true},
		page{"url": "/b.html", "lastmod": "2026-03-11T05:00:00Z", "ai_indexable": true}))
	if r := arcRun(t, e.harvest()).Run; r.Error != "" || r.Changes != 1 {
		t.Errorf("after the fix: error %q, changes %d; want b.html created", r.Error, r.Changes)
	}
}

// TestARCDeltaFeedsOverThreeDays: generated two days ago, the sitemap is
// followed by delta feeds for that day and today; yesterday's is missing.
func TestARCDeltaFeedsOverThreeDays(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-12T12:00:00Z"))
	e.site.Set("/arc-sitemap.json", jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "",
		page{"url": "/x.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:x1"},
		page{"url": "/y.html", "lastmod": "2026-03-08T10:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:y1"}))
	e.site.Set("/arc-sitemap-deltas/2026-03-10.json", jsonType, e.site.sitemapJSON(ts("2026-03-10T23:59:00Z"), "",
		// The checksum changed, the lastmod did not: updated, at the delta's generated_at.
		page{"url": "/x.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:x2",
			"ai_summary": "Now with more herons."}))
	e.site.Set("/arc-sitemap-deltas/2026-03-12.json", jsonType, e.site.sitemapJSON(ts("2026-03-12T10:00:00Z"), "",
		page{"url": "/z.html", "lastmod": "2026-03-12T09:00:00Z", "ai_indexable": true},
		page{"url": "/y.html", "lastmod": "2026-03-12T08:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:y2"}))
	r := arcRun(t, e.follow("/")).Run
	if r.Error != "" || len(r.Warnings) != 0 {
		t.Errorf("run: error %q warnings %q; a missing delta day is normal", r.Error, r.Warnings)
	}
	want := []string{
		"created /y.html 2026-03-08T10:00:00Z",
		"created /x.html 2026-03-09T10:00:00Z",
		"updated /x.html 2026-03-10T23:59:00Z",
		"updated /y.html 2026-03-12T08:00:00Z",
		"created /z.html 2026-03-12T09:00:00Z",
	}
	if got := e.changeLines(); !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, ch := range e.changes() {
		if ch.Kind == "updated" && strings.HasSuffix(ch.URL, "/x.html") && (ch.Summary != "Now with more herons." || !strings.HasSuffix(ch.Source, "2026-03-10.json")) {
			t.Errorf("update from the delta: %+v", ch)
		}
	}
	day := func(d string) []int { return e.site.Requests("/arc-sitemap-deltas/" + d + ".json") }
	for d, want := range map[string][]int{"2026-03-09": nil, "2026-03-10": {200}, "2026-03-11": {404}, "2026-03-12": {200}, "2026-03-13": nil} {
		if got := day(d); !reflect.DeepEqual(got, want) {
			t.Errorf("delta %s after the first harvest: answers %v, want %v", d, got, want)
		}
	}

	// The next day: yesterday's feed (then incomplete) is asked again,
	// conditionally; the days before are not.
	e.clock.Set(ts("2026-03-13T12:00:00Z"))
	if r := arcRun(t, e.harvest()).Run; r.Error != "" || r.Changes != 0 {
		t.Errorf("second harvest: error %q, changes %d", r.Error, r.Changes)
	}
	for d, want := range map[string][]int{"2026-03-10": {200}, "2026-03-11": {404}, "2026-03-12": {200, 304}, "2026-03-13": {404}} {
		if got := day(d); !reflect.DeepEqual(got, want) {
			t.Errorf("delta %s after the second harvest: answers %v, want %v", d, got, want)
		}
	}
	if got := e.site.Requests("/arc-sitemap.json"); !reflect.DeepEqual(got, []int{200, 200, 304}) {
		t.Errorf("full sitemap: answers %v, want discovery and harvest, then the harvest's conditional request alone", got)
	}

	// A day on: the 12th was read once complete, so it is not asked again.
	e.clock.Set(ts("2026-03-14T12:00:00Z"))
	arcRun(t, e.harvest())
	if got := day("2026-03-12"); len(got) != 2 {
		t.Errorf("the 12th, processed, was fetched again: %v", got)
	}
	if got := day("2026-03-14"); !reflect.DeepEqual(got, []int{404}) {
		t.Errorf("today's feed: %v", got)
	}
}

func TestARCDeltaProbingIsBounded(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-31T12:00:00Z"))
	e.site.Set("/arc-sitemap.json", jsonType, e.site.sitemapJSON(ts("2026-01-01T00:00:00Z"), "",
		page{"url": "/a.html", "ai_indexable": true}))
	e.follow("/")
	n := 0
	for _, r := range e.site.Log() {
		if strings.HasPrefix(r.Path, "/arc-sitemap-deltas/") {
			n++
		}
	}
	if n != 14 || len(e.site.Requests("/arc-sitemap-deltas/2026-03-18.json")) != 1 || len(e.site.Requests("/arc-sitemap-deltas/2026-03-17.json")) != 0 {
		t.Errorf("%d delta feeds probed, want the 14 days up to today", n)
	}
}

func TestARCChecksumChangeAndDeletion(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	const path = "/.well-known/arc-sitemap.json"
	e.site.Set(path, jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "",
		page{"url": "/x.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:x1"},
		page{"url": "/y.html", "lastmod": "2026-03-09T11:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:y1"},
		page{"url": "/w.html", "ai_indexable": true}))
	c := arcRun(t, e.follow("/"))
	e.site.Set(path, jsonType, e.site.sitemapJSON(ts("2026-03-11T06:00:00Z"), "",
		page{"url": "/x.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:x2", "ai_summary": "Redrawn."},
		page{"url": "/w.html", "ai_indexable": true}))
	e.clock.Set(ts("2026-03-11T12:00:00Z"))
	r := arcRun(t, e.harvest()).Run
	if r.Error != "" || r.Changes != 2 {
		t.Errorf("run: error %q changes %d, want 2", r.Error, r.Changes)
	}
	got := e.changeLines()[3:]
	want := []string{"updated /x.html 2026-03-11T06:00:00Z", "deleted /y.html 2026-03-11T06:00:00Z"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
	pages := e.pages(c.Collection.ID)
	if _, ok := pages["/y.html"]; ok || pages["/x.html"].Hash != "sha256:x2" || len(pages) != 2 {
		t.Errorf("pages: %+v", pages)
	}
	// Served again without validators, the same sitemap adds nothing.
	e.clock.Set(ts("2026-03-12T12:00:00Z"))
	if r := arcRun(t, e.harvest()).Run; r.Changes != 0 {
		t.Errorf("the same sitemap again: %d changes", r.Changes)
	}
}

// TestARCPageTurnedPrivate: a page followed while public leaves the store
// and the feeds once the site marks it ai_indexable: false.
func TestARCPageTurnedPrivate(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	const path = "/arc-sitemap.json"
	e.site.Set(path, jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "",
		page{"url": "/a.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true},
		page{"url": "/drafts.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true, "ai_summary": "soon SECRET"}))
	c := arcRun(t, e.follow("/"))
	e.site.Set(path, jsonType, e.site.sitemapJSON(ts("2026-03-11T06:00:00Z"), "",
		page{"url": "/a.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true},
		page{"url": "/drafts.html", "lastmod": "2026-03-11T05:00:00Z", "ai_indexable": false, "ai_summary": "SECRET"}))
	e.clock.Set(ts("2026-03-11T12:00:00Z"))
	r := arcRun(t, e.harvest()).Run
	if r.Error != "" || !strings.Contains(strings.Join(r.Warnings, "\n"), "1 earlier changes were removed") {
		t.Errorf("run: error %q warnings %q", r.Error, r.Warnings)
	}
	if got := e.changeLines(); !reflect.DeepEqual(got, []string{"created /a.html 2026-03-09T10:00:00Z"}) {
		t.Errorf("changes = %q", got)
	}
	if _, ok := e.pages(c.Collection.ID)["/drafts.html"]; ok {
		t.Error("the private page kept its page row")
	}
	digests, err := e.store.Digests(context.Background(), db.Scope{CollectionID: c.Collection.ID}, 10)
	if err != nil || len(digests) != 1 || digests[0].Run.Changes != 1 {
		t.Errorf("digests: %+v, %v; the first run must now count 1 change", digests, err)
	}
	for _, q := range []string{"", "?entries=page"} {
		if body := atomOf(t, e, q); strings.Contains(body, "drafts") || strings.Contains(body, "SECRET") {
			t.Errorf("feed%s still shows the page:\n%s", q, body)
		}
	}
}

func TestARCPagesOnOtherHostsAreSkipped(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	e.site.Set("/arc-sitemap.json", jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "",
		page{"url": "https://victim.example/page.html", "ai_indexable": true},
		page{"url": "/mine.html", "ai_indexable": true}))
	r := arcRun(t, e.follow("/")).Run
	if got := e.changeLines(); len(got) != 1 || !strings.Contains(got[0], "/mine.html") {
		t.Errorf("changes = %q", got)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "another host") {
		t.Errorf("warnings = %q", r.Warnings)
	}
}

// TestARCCrawlRateSlowsTheClient uses a fake sleeper: once the sitemap
// asks for 10 requests a minute, every later request to its host waits
// 6 s after the one before.
func TestARCCrawlRateSlowsTheClient(t *testing.T) {
	start := ts("2026-03-12T12:00:00Z")
	var slept []time.Duration
	fake := start
	e := newARCEnv(t, start, func(o *fetch.ClientOptions) {
		o.Now = func() time.Time { return fake }
		o.Sleep = func(_ context.Context, d time.Duration) error {
			slept = append(slept, d)
			fake = fake.Add(d)
			return nil
		}
	})
	e.site.Set("/arc-sitemap.json", jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "10/m",
		page{"url": "/a.html", "ai_indexable": true}))
	e.follow("/")
	host := strings.TrimPrefix(e.site.URL, "http://")
	if d := e.client.HostDelay(host); d != 6*time.Second {
		t.Fatalf("host delay = %v, want 6s", d)
	}
	// Three delta days were probed after the sitemap was read: the first
	// at once, the others 6 s apart.
	if !reflect.DeepEqual(slept, []time.Duration{6 * time.Second, 6 * time.Second}) {
		t.Errorf("slept %v, want [6s 6s]", slept)
	}
	slept = nil
	before := len(e.site.Log())
	e.harvest()
	requests := len(e.site.Log()) - before
	// The fake clock stands still between harvests, so even the first
	// request of this one waits its turn.
	if len(slept) < requests-1 {
		t.Errorf("second harvest: %d requests, %d waits; want every request to the host paced", requests, len(slept))
	}
	for _, d := range slept {
		if d != 6*time.Second {
			t.Errorf("waited %v, want 6s", d)
		}
	}
}

// TestARCSitemapEditedWithoutNewGeneratedAt: a full sitemap edited while
// its generated_at stays put is still compared page by page. The edits
// are dated when they were seen (or by a lastmod past the stale
// generated_at), a page now marked private leaves the feed, and a page
// no longer listed is deleted.
func TestARCSitemapEditedWithoutNewGeneratedAt(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	const path = "/.well-known/arc-sitemap.json"
	gen := ts("2026-03-10T06:00:00Z")
	e.site.Set(path, jsonType, e.site.sitemapJSON(gen, "",
		page{"url": "/x.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:x1"},
		page{"url": "/y.html", "lastmod": "2026-03-09T11:00:00Z", "ai_indexable": true},
		page{"url": "/drafts.html", "lastmod": "2026-03-09T12:00:00Z", "ai_indexable": true, "ai_summary": "soon SECRET"}))
	c := arcRun(t, e.follow("/"))
	e.site.Set(path, jsonType, e.site.sitemapJSON(gen, "",
		page{"url": "/x.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:x2"},
		page{"url": "/drafts.html", "lastmod": "2026-03-09T12:00:00Z", "ai_indexable": false, "ai_summary": "SECRET"},
		page{"url": "/z.html", "lastmod": "2026-03-11T09:00:00Z", "ai_indexable": true}))
	e.clock.Set(ts("2026-03-11T12:00:00Z"))
	r := arcRun(t, e.harvest()).Run
	if r.Error != "" || r.Changes != 3 || !strings.Contains(strings.Join(r.Warnings, "\n"), "1 earlier changes were removed") {
		t.Errorf("run: error %q changes %d warnings %q; want x updated, y deleted, z created, drafts withdrawn", r.Error, r.Changes, r.Warnings)
	}
	want := []string{
		"created /x.html 2026-03-09T10:00:00Z",
		"created /y.html 2026-03-09T11:00:00Z",
		"created /z.html 2026-03-11T09:00:00Z",
		"deleted /y.html 2026-03-11T12:00:00Z",
		"updated /x.html 2026-03-11T12:00:00Z",
	}
	got := e.changeLines()
	slices.Sort(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	pages := e.pages(c.Collection.ID)
	if _, ok := pages["/drafts.html"]; ok || pages["/x.html"].Hash != "sha256:x2" || len(pages) != 2 {
		t.Errorf("pages: %+v", pages)
	}
	for _, q := range []string{"", "?entries=page"} {
		if body := atomOf(t, e, q); strings.Contains(body, "drafts") || strings.Contains(body, "SECRET") {
			t.Errorf("feed%s still shows the private page:\n%s", q, body)
		}
	}
	// The same sitemap again, served without a 304 this time, adds nothing.
	e.clock.Set(ts("2026-03-12T12:00:00Z"))
	e.site.Set(path, jsonType, e.site.sitemapJSON(gen, "",
		page{"url": "/x.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true, "ai_checksum": "sha256:x2"},
		page{"url": "/drafts.html", "lastmod": "2026-03-09T12:00:00Z", "ai_indexable": false, "ai_summary": "SECRET"},
		page{"url": "/z.html", "lastmod": "2026-03-11T09:00:00Z", "ai_indexable": true, "crawl_priority": 0.5}))
	if r := arcRun(t, e.harvest()).Run; r.Error != "" || r.Changes != 0 {
		t.Errorf("the same pages again: error %q, %d changes", r.Error, r.Changes)
	}
}
