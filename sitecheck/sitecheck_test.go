package sitecheck

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/checksite"
	"tidings/internal/scpsite"
	"tidings/internal/sitemapsite"
)

// checkNow is the clock of the check tests; the fixtures' dates are
// relative to it.
var checkNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func newCheckSite(t *testing.T, docs map[string]string) *checksite.Site {
	t.Helper()
	s := checksite.Serve(docs)
	t.Cleanup(s.Close)
	return s
}

func checkHarvester(t *testing.T) (*db.DB, *Checker) {
	t.Helper()
	return testChecker(t, harvest.Options{Now: func() time.Time { return checkNow }})
}

func runCheck(t *testing.T, h *Checker, u string) *Report {
	t.Helper()
	dir := t.TempDir()
	rep, err := h.Check(context.Background(), u, Options{TempDir: dir})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the check left %d files behind in its temporary directory", len(left))
	}
	return rep
}

// problemsByCode maps each code to its problems.
func problemsByCode(rep *Report) map[string][]Problem {
	out := map[string][]Problem{}
	for _, p := range rep.Problems {
		out[p.Code] = append(out[p.Code], p)
	}
	return out
}

func TestCheckNamesEveryResourceSyncProblemWithItsFix(t *testing.T) {
	site := newCheckSite(t, checksite.Bad(checkNow))
	store, h := checkHarvester(t)
	before, err := store.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep := runCheck(t, h, site.URL)
	if !rep.Followable {
		t.Fatalf("not followable: %s\n%+v", rep.Verdict, rep.Problems)
	}
	caps, changes := site.URL+"/shrine/caps.xml", site.URL+"/shrine/changes.xml"
	want := []struct {
		code, doc, where, problem, fix string
	}{
		{CodeNoDescribes, site.URL + "/.well-known/resourcesync", "entry 1 <" + caps + "> on line 4", "has no <rs:ln rel=\"describes\">", "naming the collection's home page"},
		{CodeNoDescribes, caps, "", "capability list has no <rs:ln rel=\"describes\">", "capability list's own address"},
		{CodeNoUp, caps, "", "capability list has no <rs:ln rel=\"up\"> link to the Source Description", "Add <rs:ln rel=\"up\""},
		{CodeNoUp, changes, "", "change list has no <rs:ln rel=\"up\"> link to its capability list", "Add <rs:ln rel=\"up\""},
		{CodeNoDatetime, changes, "entry 2 <" + site.URL + "/shrine/b.html> on line 5", "1 entry of the change list has no datetime", "IFCC-0001 requires it, and tidings dates these entries by their lastmod meanwhile"},
		{CodeUnknownChange, changes, "entry 3 <" + site.URL + "/shrine/c.html> on line 6", `change="renamed"`, `Use change="created", "updated" or "deleted"`},
		{CodeSCPInvalid, site.URL + "/scp/blog.scp", "line 2", "The SCP snapshot is not valid: the line is not valid JSON", "rejects the whole file"},
		{CodeARCInvalid, site.URL + "/.well-known/arc-sitemap.json", "line 4", "The ARC sitemap is not valid: invalid JSON", "Appendix E"},
		{CodeNoChange, changes, "entry 5 <" + site.URL + "/shrine/e.html> on line 8", "1 entry of the change list has no change attribute", "tidings skips entries without it"},
		{CodeFuture, changes, "entry <" + site.URL + "/shrine/d.html>", "dated in the future: the latest, " + site.URL + "/shrine/d.html, on 2026-05-04T12:00:00Z", "more than a day ahead"},
	}
	got := problemsByCode(rep)
	n := 0
	for _, w := range want {
		found := false
		for _, p := range got[w.code] {
			if p.Doc == w.doc && p.Where == w.where && strings.Contains(p.Problem, w.problem) && strings.Contains(p.Fix, w.fix) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s problem in %s at %q saying %q with a fix saying %q; got %+v", w.code, w.doc, w.where, w.problem, w.fix, got[w.code])
		}
		n++
	}
	if len(rep.Problems) != n {
		t.Errorf("%d problems, want %d:\n%+v", len(rep.Problems), n, rep.Problems)
	}
	// What the problems say is not repeated as warnings.
	for _, w := range rep.Warnings {
		if strings.Contains(w, "describes") || strings.Contains(w, "unknown change") || strings.Contains(w, "dated more than a day") {
			t.Errorf("warning repeats a problem: %s", w)
		}
	}
	if len(rep.Collections) != 2 || rep.Collections[0].Changes != 2 || rep.Collections[0].Key != caps || rep.Collections[1].Error == "" {
		t.Errorf("collections %+v, want the capability list with 2 changes (a, and b by its lastmod), and the failing SCP section", rep.Collections)
	}
	after, err := store.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("the harvester's database changed: %v, then %v", before, after)
	}
}

func TestCheckOfAWellPublishedSiteNamesNoProblem(t *testing.T) {
	site := newCheckSite(t, checksite.Good(checkNow))
	_, h := testChecker(t, harvest.Options{Now: func() time.Time { return checkNow }, Snapshots: harvest.SnapshotSettings{PageFetches: 10}})
	rep := runCheck(t, h, site.URL)
	if !rep.Followable || len(rep.Problems) != 0 || len(rep.Warnings) != 0 {
		t.Fatalf("followable %v, problems %+v, warnings %q", rep.Followable, rep.Problems, rep.Warnings)
	}
	if want := "tidings can follow this site (1 collection), and found nothing to fix."; rep.Verdict != want {
		t.Errorf("verdict %q, want %q", rep.Verdict, want)
	}
	var fetched []string
	for _, f := range rep.Fetched {
		fetched = append(fetched, strings.TrimPrefix(f.URL, site.URL)+" "+f.Outcome)
	}
	for _, want := range []string{"/robots.txt returned 404 Not Found", "/.well-known/resourcesync 200 OK", "/shrine/changes.xml 200 OK", "/shrine/a.html 200 OK"} {
		if !strings.Contains(strings.Join(fetched, "\n"), want) {
			t.Errorf("fetched:\n%s\nlacks %q", strings.Join(fetched, "\n"), want)
		}
	}
	c := rep.Collections[0]
	// Older than the 30-day first-harvest window, old.html is history.
	if c.Changes != 3 || c.InFeed != 2 {
		t.Errorf("changes %d, in the feed %d; want 3 and 2", c.Changes, c.InFeed)
	}
	var titles []string
	for _, e := range c.Preview {
		titles = append(titles, e.Title+": "+e.Summary)
	}
	// The first harvest's "now following" entry comes first. A page
	// updated before tidings first read it shows no text change; a
	// created one shows its opening lines.
	if len(titles) != 4 || !strings.HasPrefix(titles[0], "Now following "+site.URL+"/shrine/: 3 pages: ") ||
		titles[1] != "Updated: Page B: Page B (updated, 2026-04-30 12:00 UTC)" ||
		titles[2] != "Created: Page A: Page A (created, 2026-04-29 12:00 UTC) All about a." || !strings.HasPrefix(titles[3], "Updated: Old:") {
		t.Errorf("preview, newest first:\n%s", strings.Join(titles, "\n"))
	}
}

func TestCheckOfASiteWithNothingSaysWhy(t *testing.T) {
	site := newCheckSite(t, map[string]string{})
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL)
	if rep.Followable || len(rep.Problems) != 1 || rep.Problems[0].Code != CodeNothingFound {
		t.Fatalf("followable %v, problems %+v", rep.Followable, rep.Problems)
	}
	// One sentence: the attempts are listed apart, each once.
	if want := "tidings cannot follow this site: every page answered 404 Not Found: check the address."; rep.Verdict != want {
		t.Errorf("verdict %q, want %q", rep.Verdict, want)
	}
	if len(rep.Tried) == 0 {
		t.Error("nothing tried is listed")
	}
	if got := (&harvest.Discovery{Tried: rep.Tried}).TriedOnce(); !slices.Equal(got, rep.Tried) {
		t.Errorf("an attempt is listed twice:\n%s", strings.Join(rep.Tried, "\n"))
	}
}

func TestCheckNamesTheLineOfAnInvalidSCPFile(t *testing.T) {
	site := scpSection(t, "/c/blog.scp.zst", checkNow.Add(-time.Hour), func(site *scpsite.Site) []any {
		return []any{scpsite.NewPage(site.URL+"/blog/a", "A", "About A", checkNow.Add(-2*time.Hour)), `{"url": "x", "title": `}
	})
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL)
	if rep.Followable {
		t.Errorf("followable with its one collection failing: %s", rep.Verdict)
	}
	got := problemsByCode(rep)[CodeSCPInvalid]
	if len(got) != 1 || got[0].Doc != site.URL+"/c/blog.scp.zst" || got[0].Where != "line 3" ||
		!strings.Contains(got[0].Problem, "not valid JSON") || !strings.Contains(got[0].Fix, "rejects the whole file") {
		t.Errorf("SCP problems %+v", got)
	}
	if len(rep.Problems) != 1 {
		t.Errorf("problems %+v, want the SCP one alone", rep.Problems)
	}
}

func TestCheckThatRunsOutOfTimeStillReports(t *testing.T) {
	docs := checksite.Good(checkNow)
	site := newCheckSite(t, docs)
	slow := make(chan struct{})
	t.Cleanup(func() { close(slow) })
	inner := site.Config.Handler
	site.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/shrine/changes.xml" {
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		}
		inner.ServeHTTP(w, r)
	})
	_, h := checkHarvester(t)
	start := time.Now()
	rep, err := h.Check(context.Background(), site.URL, Options{TempDir: t.TempDir(), Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the check took %s with a limit of 500ms", d)
	}
	if rep.Followable || len(rep.Collections) != 1 || !strings.Contains(rep.Collections[0].Error, "tidings stopped harvesting this site after 500ms") {
		t.Errorf("followable %v, collections %+v", rep.Followable, rep.Collections)
	}
}

func TestCheckNamesBadDatetimesAndAMissingFrom(t *testing.T) {
	docs := checksite.Good(checkNow)
	docs["/shrine/changes.xml"] = strings.NewReplacer(
		` from="2020-01-01"`, "",
		`</urlset>`, `  <url><loc>{{base}}/shrine/x.html</loc><rs:md change="updated" datetime="last tuesday"/></url>
</urlset>`).Replace(docs["/shrine/changes.xml"])
	site := newCheckSite(t, docs)
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL)
	got := problemsByCode(rep)
	changes := site.URL + "/shrine/changes.xml"
	if p := got[CodeNoFrom]; len(p) != 1 || p[0].Doc != changes || !strings.Contains(p[0].Fix, `Add from="…"`) {
		t.Errorf("no-from problems %+v", p)
	}
	if p := got[CodeBadDatetime]; len(p) != 1 || p[0].Where != "entry 4 <"+site.URL+"/shrine/x.html> on line 8" || !strings.Contains(p[0].Fix, "W3C datetime") {
		t.Errorf("bad-datetime problems %+v", p)
	}
	if len(rep.Problems) != 2 || len(rep.Warnings) != 0 {
		t.Errorf("problems %+v, warnings %q; want the two alone", rep.Problems, rep.Warnings)
	}
}

func TestCheckLogKeepsABoundedRecord(t *testing.T) {
	l := &checkLog{}
	for i := range maxCheckFetches + 5 {
		l.heard(fetch.Fetched{URL: fmt.Sprintf("https://example.org/%d", i), Status: 200, Bytes: 10})
	}
	for i := range maxCheckDocs + 5 {
		l.Read(harvest.Document{URL: fmt.Sprintf("https://example.org/%d.xml", i), What: "a change list"})
	}
	l.Read(harvest.Document{URL: "https://example.org/0.xml", What: "a change list"})
	for i := range maxCheckProblems + 5 {
		l.Found(harvest.Finding{Code: "x", Document: fmt.Sprintf("https://example.org/%d.xml", i), Message: "m", Fix: "f"})
	}
	l.Found(harvest.Finding{Code: "x", Document: "https://example.org/0.xml", Message: "m", Fix: "f"})
	if len(l.fetched) != maxCheckFetches || l.more != 5 || l.fetched[0].Outcome != "200 OK, 10 bytes" {
		t.Errorf("kept %d requests and counted %d more; the first %+v", len(l.fetched), l.more, l.fetched[0])
	}
	if len(l.docs) != maxCheckDocs {
		t.Errorf("kept %d documents, want %d", len(l.docs), maxCheckDocs)
	}
	if len(l.problems) != maxCheckProblems {
		t.Errorf("kept %d problems, want %d", len(l.problems), maxCheckProblems)
	}
}

func TestCheckSaysWhenRobotsTxtKeepsTidingsOut(t *testing.T) {
	docs := checksite.Good(checkNow)
	docs["/robots.txt"] = "User-agent: tidings\nDisallow: /\n"
	site := newCheckSite(t, docs)
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL)
	got := problemsByCode(rep)
	if rep.Followable || len(got[CodeNothingFound]) != 1 || !strings.Contains(got[CodeNothingFound][0].Fix, "robots.txt forbids it") {
		t.Errorf("followable %v, nothing-found %+v", rep.Followable, got[CodeNothingFound])
	}
	if p := got[CodeRobots]; len(p) != 1 || !strings.Contains(p[0].Problem, "keeps tidings from") || !strings.Contains(p[0].Fix, "Allow the user agent tidings") {
		t.Errorf("robots problems %+v", p)
	}
}

// TestCheckNamesABuildStampedSitemap: a sitemap whose every lastmod is
// the build time is followable, and the check says what to fix.
func TestCheckNamesABuildStampedSitemap(t *testing.T) {
	site := sitemapsite.New()
	t.Cleanup(site.Close)
	site.Version("2026-04-30T09:00:00Z", sitemapShrine())
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL("/"))
	if !rep.Followable {
		t.Fatalf("not followable: %s", rep.Verdict)
	}
	var stamped []Problem
	for _, p := range rep.Problems {
		if p.Code == CodeBuildStamped {
			stamped = append(stamped, p)
		}
	}
	if len(stamped) != 1 || stamped[0].Doc != site.URL("/sitemap.xml") || !strings.Contains(stamped[0].Fix, "tidings publish") {
		t.Errorf("problems %+v; want one %s of %s", rep.Problems, CodeBuildStamped, site.URL("/sitemap.xml"))
	}
	if slices.Contains(rep.Warnings, stampWarning) {
		t.Errorf("the build stamp is also among the warnings: %q", rep.Warnings)
	}
}
