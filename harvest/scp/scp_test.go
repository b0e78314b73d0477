package scp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/scpsite"
)

// base is the fake "now" of the first follow in the SCP tests.
var base = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

type scpEnv struct {
	t     *testing.T
	site  *scpsite.Site
	store *db.DB
	h     *harvest.Harvester

	mu  sync.Mutex
	now time.Time
}

func newSCPEnv(t *testing.T, o harvest.Options) *scpEnv {
	t.Helper()
	site := scpsite.New()
	t.Cleanup(site.Close)
	e := &scpEnv{t: t, site: site, now: base}
	o.Now = e.clock
	if o.Snapshots == (harvest.SnapshotSettings{}) {
		// The fixture site serves the SCP files, not the pages, and these
		// tests count what is fetched and warned about: page snapshots
		// have tests of their own, which set Snapshots.
		o.Snapshots.Off = true
	}
	e.store, e.h = harvesttest.New(t, o)
	return e
}

func (e *scpEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *scpEnv) setNow(t time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = t
}

// scpFile is one file of the sitemap: where it is and what the sitemap says
// of it.
type scpFile struct {
	path, section, typ, period string
	gen                        time.Time
	since                      *time.Time
	expires                    time.Time
}

func snapshotAt(path, section string, gen time.Time) scpFile {
	return scpFile{path: path, section: section, typ: "snapshot", gen: gen, expires: gen.Add(30 * 24 * time.Hour)}
}

func deltaAt(path, section string, gen time.Time) scpFile {
	since := gen.Add(-24 * time.Hour)
	return scpFile{path: path, section: section, typ: "delta", period: gen.Format("2006-01-02T15"), gen: gen, since: &since, expires: gen.Add(72 * time.Hour)}
}

// publish writes the sitemap listing files, under the prefix "s".
func (e *scpEnv) publish(files ...scpFile) {
	inner := []string{
		"<s:version>0.1</s:version>", "<s:compression>zstd,gzip</s:compression>",
		scpsite.Element("s", "section", "name", "blog", "updateFreq", "daily", "pages", "~10"),
		scpsite.Element("s", "section", "name", "docs", "updateFreq", "weekly", "pages", "~2"),
	}
	for _, f := range files {
		name := "collection"
		if f.typ == "delta" {
			name = "delta"
		}
		attrs := []string{"section", f.section, "type", f.typ, "url", "{{.Base}}" + f.path,
			"generated", f.gen.Format(time.RFC3339), "expires", f.expires.Format(time.RFC3339), "pages", "3", "size", "1000"}
		if f.since != nil {
			attrs = append(attrs, "period", f.period, "since", f.since.Format(time.RFC3339))
		}
		inner = append(inner, scpsite.Element("s", name, attrs...))
	}
	e.site.SetText("/sitemap.xml", scpsite.Sitemap("s", inner...))
}

func (e *scpEnv) page(path, title string, modified time.Time) scpsite.Page {
	return scpsite.NewPage(e.site.URL+path, title, "About "+title, modified)
}

func meta(f scpFile) scpsite.Meta {
	m := scpsite.Meta{"id": strings.Trim(strings.NewReplacer("/", "-", ".", "-").Replace(f.path), "-"),
		"section": f.section, "type": f.typ, "generated": f.gen.Format(time.RFC3339), "version": "0.1"}
	if f.since != nil {
		m["since"] = f.since.Format(time.RFC3339)
	}
	return m
}

func (e *scpEnv) follow() *harvest.SiteReport {
	e.t.Helper()
	return harvesttest.Follow(e.t, e.h, e.site.URL+"/")
}

func (e *scpEnv) harvest() *harvest.SiteReport {
	e.t.Helper()
	return harvesttest.HarvestSite(e.t, e.store, e.h, e.site.URL+"/")
}

// changes returns the stored changes of a section by "kind path", oldest
// first.
func (e *scpEnv) changes(section string) map[string][]db.ExportedChange {
	e.t.Helper()
	out := map[string][]db.ExportedChange{}
	err := e.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		if strings.HasSuffix(c.CollectionKey, "#"+section) {
			k := c.Kind + " " + strings.TrimPrefix(c.URL, e.site.URL)
			out[k] = append(out[k], c)
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// first returns the first change of a list, or a zero one.
func first(list []db.ExportedChange) (db.ExportedChange, bool) {
	if len(list) == 0 {
		return db.ExportedChange{}, false
	}
	return list[0], true
}

// standard publishes the first state of the test site: a blog snapshot
// offered as zstd and gzip, and a docs snapshot that is zstd behind a .gz
// name, with a checksum by each rule.
func (e *scpEnv) standard() {
	blogSnap := snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour))
	blogSnapGz := blogSnap
	blogSnapGz.path = "/c/blog-snap-1.scp.gz"
	docsSnap := snapshotAt("/c/docs-snap-1.scp.gz", "docs", base.Add(-time.Hour))
	published := base.Add(-40 * 24 * time.Hour)
	a := e.page("/blog/a", "Alpha", base.Add(-48*time.Hour))
	a["published"] = published.Format(time.RFC3339)
	c := e.page("/blog/c", "Gamma", base.Add(-24*time.Hour))
	c["published"] = c["modified"]
	blog := scpsite.File(meta(blogSnap), scpsite.ChecksumWithoutField,
		a, e.page("/blog/b", "Beta", base.Add(-60*24*time.Hour)), c)
	e.site.Set(blogSnap.path, scpsite.Zstd(blog))
	e.site.Set(blogSnapGz.path, scpsite.Gzip(blog))
	docs := scpsite.File(meta(docsSnap), scpsite.ChecksumAfterMetadata, e.page("/docs/x", "Install", base.Add(-72*time.Hour)))
	e.site.Set(docsSnap.path, scpsite.Zstd(docs))
	e.publish(blogSnap, blogSnapGz, docsSnap)
}

func TestSCPFollowReadsEachSnapshotOnce(t *testing.T) {
	harvesttest.OnEachEngine(t, testSCPFollowReadsEachSnapshotOnce)
}

func testSCPFollowReadsEachSnapshotOnce(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	rep := e.follow()
	if len(rep.Collections) != 2 {
		t.Fatalf("collections %d, want one per section", len(rep.Collections))
	}
	blog, docs := harvesttest.Collection(t, rep, "#blog"), harvesttest.Collection(t, rep, "#docs")
	if blog.Collection.Protocol != Name || blog.Collection.Key != e.site.URL+"/sitemap.xml#blog" ||
		!strings.HasPrefix(blog.Collection.Title, "blog (") {
		t.Errorf("blog collection %+v", blog.Collection)
	}
	if blog.Run.Error != "" || docs.Run.Error != "" {
		t.Fatalf("errors: %q %q", blog.Run.Error, docs.Run.Error)
	}
	// Alpha (updated, published long before) and Gamma (created) are
	// recent; Beta is history.
	if blog.Run.Changes != 2 || blog.Run.Backfilled != 1 || docs.Run.Changes != 1 {
		t.Errorf("blog changes %d backfilled %d, docs changes %d", blog.Run.Changes, blog.Run.Backfilled, docs.Run.Changes)
	}
	if n, m := e.site.Requests("/c/blog-snap-1.scp.zst"), e.site.Requests("/c/blog-snap-1.scp.gz"); n != 1 || m != 0 {
		t.Errorf("zstd requested %d times, gzip %d: the snapshot must be read once, in the preferred format", n, m)
	}
	got := e.changes("blog")
	a, ok := first(got["updated /blog/a"])
	if !ok || a.Title != "Alpha" || a.Summary != "About Alpha" || a.Author != "Ann Example" || a.Language != "en" ||
		!a.Datetime.Equal(base.Add(-48*time.Hour)) || a.History {
		t.Errorf("Alpha: %+v (all: %v)", a, keys(got))
	}
	if c, ok := first(got["created /blog/c"]); !ok || c.History {
		t.Errorf("Gamma: %+v", c)
	}
	if b, ok := first(got["created /blog/b"]); !ok || !b.History {
		t.Errorf("Beta should be history: %+v", b)
	}
	var st scpState
	if err := json.Unmarshal([]byte(mustCollection(t, e.store, blog.Collection.ID).State), &st); err != nil ||
		!strings.HasPrefix(st.Checksum, "file-without-checksum-field ") || st.SnapshotRead == nil {
		t.Errorf("blog state %+v (%v)", st, err)
	}
	if st := mustCollection(t, e.store, docs.Collection.ID).State; !strings.Contains(st, "bytes-after-metadata-line") {
		t.Errorf("docs state %s", st)
	}
	pages, _ := e.store.Pages(context.Background(), blog.Collection.ID)
	if p := pages[e.site.URL+"/blog/b"]; len(pages) != 3 || p.Title != "Beta" || len(p.Hash) != 64 {
		t.Errorf("known pages %d; Beta %+v", len(pages), p)
	}
}

func TestSCPDeltasOverlapAndWeeklySnapshotFindsDeletions(t *testing.T) {
	harvesttest.OnEachEngine(t, testSCPDeltasOverlapAndWeeklySnapshotFindsDeletions)
}

func testSCPDeltasOverlapAndWeeklySnapshotFindsDeletions(t *testing.T) {
	e := newSCPEnv(t, harvest.Options{})
	e.standard()
	e.follow()
	blogSnap := snapshotAt("/c/blog-snap-1.scp.zst", "blog", base.Add(-time.Hour))
	docsSnap := snapshotAt("/c/docs-snap-1.scp.gz", "docs", base.Add(-time.Hour))

	// A day later: two overlapping blog deltas (listed newest first), a
	// docs delta, and an expired one.
	t1 := base.Add(24 * time.Hour)
	e.setNow(t1)
	d1 := deltaAt("/c/blog-d1.scp.zst", "blog", t1.Add(-2*time.Hour))
	d2 := deltaAt("/c/blog-d2.scp.gz", "blog", t1.Add(-time.Hour))
	dd := deltaAt("/c/docs-d1.scp.gz", "docs", t1.Add(-2*time.Hour))
	old := deltaAt("/c/blog-d0.scp.gz", "blog", base.Add(-30*time.Minute))
	old.expires = t1.Add(-time.Hour)
	a2 := e.page("/blog/a", "Alpha, again", t1.Add(-5*time.Hour))
	d := e.page("/blog/d", "Delta", t1.Add(-4*time.Hour))
	unchangedC := e.page("/blog/c", "Gamma", base.Add(-24*time.Hour))
	unchangedC["published"] = unchangedC["modified"]
	future := e.page("/blog/e", "Epsilon", t1.Add(3*time.Hour))
	e.site.Set(d1.path, scpsite.Zstd(scpsite.File(meta(d1), scpsite.NoChecksum, a2, d, unchangedC)))
	e.site.Set(d2.path, scpsite.Gzip(scpsite.File(meta(d2), scpsite.NoChecksum, d, a2, future)))
	e.site.Set(dd.path, scpsite.Gzip(scpsite.File(nil, 0, e.page("/docs/x", "Install v2", t1.Add(-6*time.Hour)))))
	e.publish(blogSnap, docsSnap, d2, d1, dd, old)
	rep := e.harvest()
	blog, docs := harvesttest.Collection(t, rep, "#blog").Run, harvesttest.Collection(t, rep, "#docs").Run
	if blog.Error != "" || docs.Error != "" {
		t.Fatalf("errors %q %q", blog.Error, docs.Error)
	}
	if blog.Changes != 3 || docs.Changes != 1 {
		t.Errorf("changes: blog %d (want Alpha updated, Delta and Epsilon created), docs %d", blog.Changes, docs.Changes)
	}
	if len(blog.Warnings) != 1 || !strings.Contains(blog.Warnings[0], "expired") {
		t.Errorf("warnings %q, want the expired delta", blog.Warnings)
	}
	if e.site.Requests(old.path) != 0 || e.site.Requests(blogSnap.path) != 1 {
		t.Error("an expired delta or the unchanged snapshot was downloaded")
	}
	got := e.changes("blog")
	if c, ok := first(got["created /blog/e"]); !ok || !c.Datetime.Equal(d2.gen) {
		t.Errorf("Epsilon, modified after its delta was generated, should be dated by the delta: %+v", c)
	}
	if list := got["updated /blog/a"]; len(list) != 2 || list[0].Title != "Alpha" || list[1].Title != "Alpha, again" {
		t.Errorf("Alpha changes: %+v", list)
	}
	if x, _ := first(e.changes("docs")["updated /docs/x"]); x.Title != "Install v2" || !x.Datetime.Equal(t1.Add(-6*time.Hour)) {
		t.Errorf("docs change without a metadata line: %+v", x)
	}

	// Harvesting again downloads nothing new and records nothing.
	e.setNow(t1.Add(time.Hour))
	rep = e.harvest()
	if n := rep.Changes(); n != 0 {
		t.Errorf("second harvest found %d changes", n)
	}
	for _, p := range []string{d1.path, d2.path, dd.path} {
		if n := e.site.Requests(p); n != 1 {
			t.Errorf("%s requested %d times", p, n)
		}
	}

	// Three days in, a newer snapshot without Beta: not read yet, the
	// weekly interval has not passed.
	snap2 := snapshotAt("/c/blog-snap-2.scp.zst", "blog", base.Add(72*time.Hour))
	e.site.Set(snap2.path, scpsite.Zstd(scpsite.File(meta(snap2), 0, a2, unchangedC, d, future)))
	e.setNow(base.Add(73 * time.Hour))
	e.publish(snap2, docsSnap, d2, d1, dd)
	if rep := e.harvest(); rep.Changes() != 0 || e.site.Requests(snap2.path) != 0 {
		t.Fatalf("snapshot read before the interval: %d requests", e.site.Requests(snap2.path))
	}

	// Eight days in, a newer snapshot still without Beta, and a delta after
	// it that creates a page: Beta is deleted; the page from the delta is
	// not, although the snapshot does not list it.
	snap3 := snapshotAt("/c/blog-snap-3.scp.zst", "blog", base.Add(8*24*time.Hour-time.Hour))
	d3 := deltaAt("/c/blog-d3.scp.zst", "blog", base.Add(8*24*time.Hour-30*time.Minute))
	g := e.page("/blog/g", "Gimel", base.Add(8*24*time.Hour-40*time.Minute))
	e.site.Set(snap3.path, scpsite.Zstd(scpsite.File(meta(snap3), 0, a2, unchangedC, d, future)))
	e.site.Set(d3.path, scpsite.Zstd(scpsite.File(meta(d3), 0, g)))
	e.setNow(base.Add(8 * 24 * time.Hour))
	e.publish(snap2, snap3, docsSnap, d2, d1, d3, dd)
	rep = e.harvest()
	if r := harvesttest.Collection(t, rep, "#blog").Run; r.Error != "" || r.Changes != 2 {
		t.Fatalf("weekly harvest: error %q, changes %d (want Beta deleted and Gimel created)", r.Error, r.Changes)
	}
	if e.site.Requests(snap2.path) != 0 || e.site.Requests(snap3.path) != 1 {
		t.Errorf("snapshots read: 2 → %d, 3 → %d; want only the newest", e.site.Requests(snap2.path), e.site.Requests(snap3.path))
	}
	got = e.changes("blog")
	if b, ok := first(got["deleted /blog/b"]); !ok || b.Title != "Beta" || !b.Datetime.Equal(snap3.gen) || b.History {
		t.Errorf("Beta deletion: %+v (all %v)", b, keys(got))
	}
	if _, ok := got["deleted /blog/g"]; ok {
		t.Error("a page from a delta newer than the snapshot was deleted")
	}
	n := 0
	for _, list := range got {
		n += len(list)
	}
	if n != 8 {
		t.Errorf("blog changes %v", keys(got))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func mustCollection(t *testing.T, store *db.DB, id int64) db.Collection {
	t.Helper()
	c, err := store.CollectionByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
