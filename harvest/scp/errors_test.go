package scp

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/scpsite"
	"tidings/source"
)

// TestSCPFatalFileStoresNothing: a delta with a fatal problem is rejected
// whole (not even its valid first page is stored), the run's error names
// the file and the line, a later valid delta is still read, and the bad
// one is tried again next time.
func TestSCPFatalFileStoresNothing(t *testing.T) {
	t1 := base.Add(24 * time.Hour)
	bad := deltaAt("/c/blog-bad", "blog", t1.Add(-2*time.Hour))
	good := deltaAt("/c/blog-good.scp.zst", "blog", t1.Add(-time.Hour))
	without := func(e *scpEnv, field string) scpsite.Page {
		p := e.page("/blog/x", "X", t1.Add(-3*time.Hour))
		delete(p, field)
		return p
	}
	type build func(e *scpEnv, ok scpsite.Page) []byte
	withBad := func(line func(e *scpEnv) any) build {
		return func(e *scpEnv, ok scpsite.Page) []byte {
			return scpsite.File(meta(bad), 0, ok, line(e), e.page("/blog/y", "Y", t1.Add(-3*time.Hour)))
		}
	}
	missing := func(field string) build {
		return withBad(func(e *scpEnv) any { return without(e, field) })
	}
	cases := []struct {
		name string
		file build
		line int
		want string
	}{
		{"invalid JSON", withBad(func(*scpEnv) any { return `{"url": "x", "title": ` }), 3, "not valid JSON"},
		{"missing url", missing("url"), 3, `no "url"`},
		{"missing title", missing("title"), 3, `no "title"`},
		{"missing description", missing("description"), 3, `no "description"`},
		{"missing modified", missing("modified"), 3, `no "modified"`},
		{"missing language", missing("language"), 3, `no "language"`},
		{"missing content", missing("content"), 3, `no "content"`},
		{"delta without since", func(e *scpEnv, ok scpsite.Page) []byte {
			m := meta(bad)
			delete(m, "since")
			return scpsite.File(m, 0, ok)
		}, 1, `without "since"`},
		{"not a delta", func(e *scpEnv, ok scpsite.Page) []byte {
			m := meta(bad)
			m["type"] = "snapshot"
			return scpsite.File(m, 0, ok)
		}, 1, "lists it as a delta"},
		{"checksum mismatch", func(e *scpEnv, ok scpsite.Page) []byte {
			return scpsite.File(meta(bad), scpsite.ChecksumWrong, ok)
		}, 1, "does not match"},
		{"ratio over 100:1", withBad(func(e *scpEnv) any {
			return e.page("/blog/z", strings.Repeat("z", 3<<20), t1)
		}), 3, "compression bomb"},
		// Cut short by 12 bytes after compression (see below); the line
		// named is the one being read when the data ran out, which depends
		// on how far the decompressor reads ahead (0: any line).
		{"truncated", withBad(func(e *scpEnv) any { return e.page("/blog/x", "X", t1.Add(-3*time.Hour)) }), 0, "compressed data"},
	}
	packs := []struct {
		name string
		pack func([]byte) []byte
	}{{"gzip", scpsite.Gzip}, {"zstd", scpsite.Zstd}}
	for _, c := range cases {
		for _, p := range packs {
			t.Run(c.name+"/"+p.name, func(t *testing.T) {
				e := newSCPEnv(t, harvest.Options{})
				e.standard()
				e.follow()
				e.setNow(t1)
				ok := e.page("/blog/ok1", "Valid but in a bad file", t1.Add(-3*time.Hour))
				data := p.pack(c.file(e, ok))
				if c.name == "truncated" {
					data = data[:len(data)-12]
				}
				e.site.Set(bad.path, data)
				e.site.Set(good.path, scpsite.Zstd(scpsite.File(meta(good), 0, e.page("/blog/good", "Good", t1.Add(-90*time.Minute)))))
				e.publish(snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour)), bad, good)
				run := harvesttest.Collection(t, e.harvest(), "#blog")
				wantErr := fmt.Sprintf("the delta %s%s was rejected: line %d: ", e.site.URL, bad.path, c.line)
				if c.line == 0 {
					wantErr = regexp.MustCompile(`line \d+: `).ReplaceAllString(wantErr, "")
					if !regexp.MustCompile(`rejected: line [1-9]\d*: `).MatchString(run.Run.Error) {
						t.Errorf("error %q names no line", run.Run.Error)
					}
				}
				if !strings.Contains(run.Run.Error, wantErr) || !strings.Contains(run.Run.Error, c.want) {
					t.Errorf("error %q\nwant %q … %q", run.Run.Error, wantErr, c.want)
				}
				got := e.changes("blog")
				for _, p := range []string{"/blog/ok1", "/blog/x", "/blog/y", "/blog/z"} {
					if _, stored := got["created "+p]; stored {
						t.Errorf("%s from the rejected file was stored", p)
					}
				}
				if _, stored := got["created /blog/good"]; !stored || run.Run.Changes != 1 {
					t.Errorf("the later valid delta was not read: %d changes", run.Run.Changes)
				}
				done, _ := e.store.Processed(context.Background(), run.Collection.ID)
				if done[scpDeltaKey(e.site.URL+bad.path, bad.gen)] || !done[scpDeltaKey(e.site.URL+good.path, good.gen)] {
					t.Errorf("processed %v", done)
				}
				pages, _ := e.store.Pages(context.Background(), run.Collection.ID)
				if _, ok := pages[e.site.URL+"/blog/ok1"]; ok {
					t.Error("a page of the rejected file became known")
				}
				e.harvest()
				if n := e.site.Requests(bad.path); n != 2 {
					t.Errorf("rejected delta requested %d times, want it tried again", n)
				}
			})
		}
	}
}

func TestSCPWarningsAreCounted(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	e.follow()
	t1 := base.Add(24 * time.Hour)
	e.setNow(t1)
	d := deltaAt("/c/blog-w.scp.gz", "blog", t1.Add(-time.Hour))
	blocks := e.page("/blog/blocks", "Blocks", t1.Add(-2*time.Hour))
	blocks["content"] = []any{
		map[string]any{"type": "hologram", "text": "?"},
		map[string]any{"type": "heading", "level": 9, "text": "deep"},
		map[string]any{"type": "text", "text": "kept"},
	}
	js := e.page("/blog/js", "JS", t1.Add(-2*time.Hour))
	js["url"] = "javascript:alert(1)"
	elsewhere := scpsite.NewPage("https://elsewhere.example/page", "Not ours", "someone else's page", t1.Add(-2*time.Hour))
	e.site.Set(d.path, scpsite.Gzip(scpsite.File(meta(d), 0, blocks, js, elsewhere, e.page("/blog/fine", "Fine", t1.Add(-2*time.Hour)))))
	e.publish(snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour)), d)
	run := harvesttest.Collection(t, e.harvest(), "#blog").Run
	if run.Error != "" {
		t.Fatal(run.Error)
	}
	if len(run.Warnings) != 4 {
		t.Fatalf("warnings %q, want the unknown block, the clamped heading and the two skipped pages", run.Warnings)
	}
	all := strings.Join(run.Warnings, "\n")
	for _, want := range []string{`unknown type "hologram"`, "level 9, outside 1–6; clamped to 6", "javascript:", "elsewhere.example/page is not on 127.0.0.1"} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning with %q in\n%s", want, all)
		}
	}
	if run.Changes != 2 {
		t.Errorf("changes %d, want the two valid pages", run.Changes)
	}
	got := e.changes("blog")
	for k := range got {
		if strings.Contains(k, "elsewhere") || strings.Contains(k, "javascript") {
			t.Errorf("stored %s", k)
		}
	}
}

// TestSCPCompressionBombAbortsEarly serves a 96 MB delta that would
// decompress to about 60 GiB: the harvest stops after reading a tiny part.
func TestSCPCompressionBombAbortsEarly(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	e.follow()
	t1 := base.Add(24 * time.Hour)
	e.setNow(t1)
	line := scpsite.Marshal(e.page("/blog/same", strings.Repeat("a", 4000), t1.Add(-2*time.Hour)))
	var buf bytes.Buffer
	for buf.Len() < 4<<20 {
		buf.Write(line)
		buf.WriteByte('\n')
	}
	chunk := scpsite.Gzip(buf.Bytes())
	n := 96 << 20 / len(chunk)
	total := int64(n * len(chunk))
	d := deltaAt("/c/blog-bomb.scp.gz", "blog", t1.Add(-time.Hour))
	e.site.Handle(d.path, scpsite.Repeat(chunk, n))
	e.publish(snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour)), d)
	run := harvesttest.Collection(t, e.harvest(), "#blog").Run
	if !strings.Contains(run.Error, "compression bomb") || !strings.Contains(run.Error, "line ") {
		t.Fatalf("error %q", run.Error)
	}
	// The server may have put a few MB into socket buffers before the
	// connection closed; nowhere near the file.
	if sent := e.site.Sent(d.path); sent > total/8 {
		t.Errorf("the server sent %d of %d bytes before the harvest gave up", sent, total)
	}
	if run.Changes != 0 {
		t.Errorf("%d changes stored from a bomb", run.Changes)
	}
	t.Logf("sent %d of %d bytes; %s", e.site.Sent(d.path), total, run.Error)
}

func TestSCPSizeCapsFromOptions(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{Sources: source.SettingsSet{Name: &Settings{MaxDecompressed: 500}}})
	e.standard()
	rep := e.follow()
	if r := harvesttest.Collection(t, rep, "#blog").Run; !strings.Contains(r.Error, "decompresses to more than the limit of 500 bytes") {
		t.Errorf("blog error %q", r.Error)
	}
	e2 := newSCPEnv(t, harvest.Options{Sources: source.SettingsSet{Name: &Settings{MaxCompressed: 100}}})
	e2.standard()
	if r := harvesttest.Collection(t, e2.follow(), "#docs").Run; !strings.Contains(r.Error, "larger than the limit") &&
		!strings.Contains(r.Error, "more than the limit") {
		t.Errorf("docs error %q", r.Error)
	}
}

// TestSiteWithResourceSyncAndSCP: both kinds of collection are found.
func TestSiteWithResourceSyncAndSCP(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	const rsNS = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	e.site.SetText("/.well-known/resourcesync", `<urlset `+rsNS+`><rs:md capability="description"/>
<url><loc>{{.Base}}/caps.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="{{.Base}}/gallery/"/></url></urlset>`)
	e.site.SetText("/caps.xml", `<urlset `+rsNS+`><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="{{.Base}}/gallery/"/>
<url><loc>{{.Base}}/changes.xml</loc><rs:md capability="changelist"/></url></urlset>`)
	e.site.SetText("/changes.xml", `<urlset `+rsNS+`><rs:md capability="changelist"/>
<url><loc>{{.Base}}/gallery/1.html</loc><rs:md change="created" datetime="`+base.Add(-time.Hour).Format(time.RFC3339)+`"/></url></urlset>`)
	rep := e.follow()
	kinds := map[string]int{}
	for _, c := range rep.Collections {
		kinds[c.Collection.Protocol]++
		if c.Run.Error != "" {
			t.Errorf("%s: %s", c.Collection.Key, c.Run.Error)
		}
	}
	if kinds["resourcesync"] != 1 || kinds[Name] != 2 {
		t.Errorf("collections by protocol %v", kinds)
	}
	if rep.Changes() != 4 {
		t.Errorf("changes %d", rep.Changes())
	}
}

// TestSCPFromSitemapIndexAndRobots: SCP sitemaps named by robots.txt and
// below a sitemap index are found.
func TestSCPFromSitemapIndexAndRobots(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	sm, _ := e.siteDoc("/sitemap.xml")
	e.site.Remove("/sitemap.xml")
	e.site.Set("/maps/scp.xml", sm)
	e.site.SetText("/maps/index.xml", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>{{.Base}}/maps/plain.xml</loc></sitemap><sitemap><loc>{{.Base}}/maps/scp.xml</loc></sitemap></sitemapindex>`)
	e.site.SetText("/maps/plain.xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{{.Base}}/</loc></url></urlset>`)
	e.site.SetText("/robots.txt", "User-agent: *\nSitemap: {{.Base}}/maps/index.xml\n")
	rep := e.follow()
	if len(rep.Collections) != 2 || !strings.HasSuffix(rep.Collections[0].Collection.Key, "/maps/scp.xml#blog") {
		t.Fatalf("collections %+v", rep.Collections)
	}
}

// siteDoc returns what the test site serves at path.
func (e *scpEnv) siteDoc(path string) ([]byte, error) {
	c := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	resp, err := c.Get(context.Background(), e.site.URL+path, fetch.Conditional{})
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.Body, nil
}

// TestSCPDownloadRetryAfter: a delta answered 429 with a Retry-After
// postpones the site's next harvest past the wait, and the files after it
// are left for that harvest rather than asked for at once.
func TestSCPDownloadRetryAfter(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	e.follow()
	t1 := base.Add(24 * time.Hour)
	e.setNow(t1)
	d1 := deltaAt("/c/blog-d1.scp.zst", "blog", t1.Add(-2*time.Hour))
	d2 := deltaAt("/c/blog-d2.scp.zst", "blog", t1.Add(-time.Hour))
	e.site.Handle(d1.path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "259200") // three days
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	e.site.Set(d2.path, scpsite.Zstd(scpsite.File(meta(d2), 0, e.page("/blog/n", "New", t1.Add(-90*time.Minute)))))
	e.publish(snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour)), d1, d2)
	rep := e.harvest()
	if r := harvesttest.Collection(t, rep, "#blog").Run; !strings.Contains(r.Error, "429") {
		t.Errorf("run error %q, want the 429", r.Error)
	}
	site, err := e.store.SiteByID(context.Background(), rep.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if wait := site.NextHarvestAt.Sub(t1); wait < 72*time.Hour {
		t.Errorf("next harvest in %v, want at least the three days asked for", wait)
	}
	if n := e.site.Requests(d2.path); n != 0 {
		t.Errorf("the delta after the 429 was requested %d times in the same harvest", n)
	}
	// Harvested again (by hand: the schedule would wait), both are read.
	e.site.Remove(d1.path)
	e.site.Set(d1.path, scpsite.Zstd(scpsite.File(meta(d1), 0, e.page("/blog/m", "Middle", t1.Add(-150*time.Minute)))))
	e.setNow(t1.Add(2 * time.Hour))
	if r := harvesttest.Collection(t, e.harvest(), "#blog").Run; r.Error != "" || r.Changes != 2 {
		t.Errorf("after the wait: error %q, %d changes", r.Error, r.Changes)
	}
}
