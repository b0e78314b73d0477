package sitecheck

import (
	"net"
	"strings"
	"testing"
	"time"

	"tidings/harvest"
	"tidings/internal/checksite"
)

// TestCheckOfAnUnreachableSite: nothing answering is one sentence with
// what to do, the attempts listed apart and each document asked for
// once, robots.txt too.
func TestCheckOfAnUnreachableSite(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + l.Addr().String() + "/"
	l.Close()
	_, h := checkHarvester(t)
	rep := runCheck(t, h, gone)
	if rep.Followable || rep.Answered() || len(rep.Problems) != 1 {
		t.Fatalf("followable %v, answered %v, problems %+v", rep.Followable, rep.Answered(), rep.Problems)
	}
	p := rep.Problems[0]
	if p.Problem != "The site refused the connection: nothing answers at this address." || !strings.HasPrefix(p.Fix, "Check that the address is right") {
		t.Errorf("problem %q, fix %q", p.Problem, p.Fix)
	}
	if strings.Contains(rep.Verdict, "dial tcp") || strings.Count(rep.Verdict, ".") != 1 {
		t.Errorf("verdict is not one sentence without the errors behind it: %q", rep.Verdict)
	}
	asked := map[string]int{}
	for _, f := range rep.Fetched {
		asked[f.URL]++
	}
	for u, n := range asked {
		if n > 1 {
			t.Errorf("%s asked for %d times, want once", u, n)
		}
	}
	if asked[gone+"robots.txt"] != 1 {
		t.Errorf("robots.txt asked for %d times, want once", asked[gone+"robots.txt"])
	}
}

// TestCheckCountsTheResourceList: a collection whose change list names no
// change yet still has the pages of its resource list, and the report
// lists the documents found as well as the places that had nothing.
func TestCheckCountsTheResourceList(t *testing.T) {
	docs := checksite.Good(checkNow)
	docs["/shrine/caps.xml"] = strings.Replace(docs["/shrine/caps.xml"], "<url>",
		`<url><loc>{{base}}/shrine/resources.xml</loc><rs:md capability="resourcelist"/></url>
  <url>`, 1)
	docs["/shrine/changes.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="{{base}}/shrine/caps.xml"/>
  <rs:md capability="changelist" from="2020-01-01"/>
</urlset>`
	var entries []string
	for _, p := range []string{"index.html", "a.html", "b.html", "c.html", "d.html"} {
		entries = append(entries, `<url><loc>{{base}}/shrine/`+p+`</loc></url>`)
	}
	docs["/shrine/resources.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="{{base}}/shrine/caps.xml"/>
  <rs:md capability="resourcelist" at="2026-04-30T00:00:00Z"/>
  ` + strings.Join(entries, "\n  ") + `
</urlset>`
	site := newCheckSite(t, docs)
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL)
	if !rep.Followable || len(rep.Collections) != 1 {
		t.Fatalf("followable %v, collections %+v", rep.Followable, rep.Collections)
	}
	c := rep.Collections[0]
	if c.Pages != 5 || c.PagesFrom != site.URL+"/shrine/resources.xml" || c.Changes != 0 {
		t.Errorf("pages %d from %q, changes %d; want the 5 pages of the resource list and no change", c.Pages, c.PagesFrom, c.Changes)
	}
	// The collection's first harvest reads the resource list and the
	// change list (the capability list came with discovery); the check
	// counts the pages from that one read.
	read := 0
	for _, f := range rep.Fetched {
		if f.URL == site.URL+"/shrine/resources.xml" {
			read++
		}
	}
	if read != 1 {
		t.Errorf("the resource list was fetched %d times, want once", read)
	}
	if want := "2 documents read; 5 pages listed in its resource list; no change yet, so its feed starts with the next change."; c.Outcome != want {
		t.Errorf("outcome %q, want %q", c.Outcome, want)
	}
	found := strings.Join(rep.Found, "\n")
	for _, want := range []string{
		site.URL + "/.well-known/resourcesync is a ResourceSync Source Description naming 1 capability list",
		site.URL + "/shrine/caps.xml is a capability list naming a resource list and a change list",
		site.URL + "/shrine/changes.xml is a change list",
		site.URL + "/shrine/resources.xml is a resource list of 5 pages",
	} {
		if !strings.Contains(found, want) {
			t.Errorf("found:\n%s\nlacks %q", found, want)
		}
	}
	if len(rep.Problems) != 0 {
		t.Errorf("problems %+v", rep.Problems)
	}
}

// TestCheckOfASiteThatPublishesNothing: a site whose pages tidings can
// only watch is followable, and its owner is told how to publish its
// changes instead.
func TestCheckOfASiteThatPublishesNothing(t *testing.T) {
	site := newCheckSite(t, map[string]string{"/": `<html><head><title>Moths</title></head><body><p>Moths.</p></body></html>`})
	_, h := testChecker(t, harvest.Options{Now: func() time.Time { return checkNow }, Snapshots: harvest.SnapshotSettings{PageFetches: 10}})
	rep := runCheck(t, h, site.URL)
	if !rep.Followable || len(rep.Problems) != 1 || rep.Problems[0].Code != CodePagesOnly || rep.Problems[0].Blocking {
		t.Fatalf("followable %v, problems %+v", rep.Followable, rep.Problems)
	}
	if fix := rep.Problems[0].Fix; !strings.Contains(fix, "tidings publish") || !strings.Contains(fix, "sitemap.xml") {
		t.Errorf("the fix does not point to tidings publish and a sitemap: %q", fix)
	}
	if want := "tidings can follow this site (1 collection), but it has 1 problem to fix."; rep.Verdict != want {
		t.Errorf("verdict %q, want %q", rep.Verdict, want)
	}
}

// TestCheckOfAnAddressWithoutScheme: tried over https, where nothing
// answers, then over http, where the site is; the report says which.
func TestCheckOfAnAddressWithoutScheme(t *testing.T) {
	site := newCheckSite(t, checksite.Good(checkNow))
	_, h := checkHarvester(t)
	hostPort := strings.TrimPrefix(site.URL, "http://")
	rep := runCheck(t, h, hostPort+"/")
	if !rep.Followable || rep.Site != site.URL+"/" {
		t.Fatalf("followable %v, checked %s; want %s/", rep.Followable, rep.Site, site.URL)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Code != CodeNoHTTPS || rep.Problems[0].Blocking {
		t.Fatalf("problems %+v, want the one saying https did not answer", rep.Problems)
	}
	want := "The site does not answer over https: at https://" + hostPort + "/, the site answers plain http there; it answered at " + site.URL + "/, where it was checked."
	if rep.Problems[0].Problem != want {
		t.Errorf("problem %q, want %q", rep.Problems[0].Problem, want)
	}
	if want := "tidings can follow this site (1 collection), but it has 1 problem to fix."; rep.Verdict != want {
		t.Errorf("verdict %q, want %q", rep.Verdict, want)
	}
	for _, f := range rep.Fetched {
		if strings.HasPrefix(f.URL, "https://") {
			t.Errorf("the report of the http attempt lists %s", f.URL)
		}
	}
}
