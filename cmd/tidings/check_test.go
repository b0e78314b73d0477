package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tidings/internal/checksite"
)

func newCheckSite(t *testing.T, docs map[string]string) *checksite.Site {
	t.Helper()
	s := checksite.Serve(docs)
	t.Cleanup(s.Close)
	return s
}

func TestCheckNamesEachProblemWithItsFix(t *testing.T) {
	t.Parallel()
	site := newCheckSite(t, checksite.Bad(time.Now()))
	env := newEnv(t)
	r := tidings(t, env, "check", site.URL)
	mustSucceed(t, r)
	for _, want := range []string{
		"[no-describes] " + site.URL + "/.well-known/resourcesync, entry 1 <" + site.URL + "/shrine/caps.xml> on line 4",
		"[no-describes] " + site.URL + "/shrine/caps.xml\n",
		"[no-up] " + site.URL + "/shrine/caps.xml\n",
		"[no-up] " + site.URL + "/shrine/changes.xml\n",
		"[no-datetime] " + site.URL + "/shrine/changes.xml, entry 2 <" + site.URL + "/shrine/b.html> on line 5\n" +
			"     1 entry of the change list has no datetime.\n" +
			"     Fix: Add datetime=\"…\" (when the change was made, such as 2024-05-01T12:00:00Z) to each entry's rs:md: IFCC-0001 requires it, and tidings dates these entries by their lastmod meanwhile (and ignores those without one).\n",
		"[unknown-change] " + site.URL + "/shrine/changes.xml, entry 3 <" + site.URL + "/shrine/c.html> on line 6\n" +
			"     1 entry of the change list has change=\"renamed\", which is not a change IFCC-0001 knows.\n",
		"[no-change] " + site.URL + "/shrine/changes.xml, entry 5 <" + site.URL + "/shrine/e.html> on line 8\n",
		"[future-dates] " + site.URL + "/shrine/changes.xml, entry <" + site.URL + "/shrine/d.html>",
		"[scp-invalid] " + site.URL + "/scp/blog.scp, line 2\n     The SCP snapshot is not valid: the line is not valid JSON",
		"[arc-invalid] " + site.URL + "/.well-known/arc-sitemap.json, line 4\n     The ARC sitemap is not valid: invalid JSON",
		"Documents fetched:\n",
		site.URL + "/robots.txt: returned 404 Not Found\n",
		site.URL + "/shrine/changes.xml: 200 OK",
		"Problems (10):",
		// A warning no rule explains is shown as the harvest says it.
		"Also noted:\n",
		"  - The page " + site.URL + "/shrine/a.html returned 404 Not Found; its change is kept without its text\n",
		"tidings can follow this site (2 collections), but it has 10 problems to fix.\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(env["TIDINGS_DB"]); !os.IsNotExist(err) {
		t.Errorf("check made a database at %s (%v)", env["TIDINGS_DB"], err)
	}
}

func TestCheckOfAWellPublishedSite(t *testing.T) {
	t.Parallel()
	site := newCheckSite(t, checksite.Good(time.Now()))
	r := tidings(t, newEnv(t), "check", site.URL+"/shrine/")
	mustSucceed(t, r)
	for _, want := range []string{
		"\nNo problems found.\n",
		"    1 document read; 3 pages; 3 changes, of which following it now puts the 2 of the last 30 days in its feed and keeps the older ones as already seen.\n",
		// What was found, as well as where nothing was.
		"  + " + site.URL + "/.well-known/resourcesync is a ResourceSync Source Description naming 1 capability list\n",
		"  + " + site.URL + "/shrine/changes.xml is a change list\n",
		"  - " + site.URL + "/sitemap.xml returned 404 Not Found\n",
		"What the feeds would show, newest first:\n",
		"  Updated: Page B\n",
		"  Created: Page A\n      Page A (created, ",
		") All about a.\n      " + site.URL + "/shrine/a.html\n",
		"tidings can follow this site (1 collection), and found nothing to fix.\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "Problems") || strings.Contains(r.stdout, "Also noted") {
		t.Errorf("a well-published site has problems or warnings:\n%s", r.stdout)
	}
}

func TestCheckOfASiteThatCannotBeFollowed(t *testing.T) {
	t.Parallel()
	empty := newCheckSite(t, map[string]string{})
	r := tidings(t, newEnv(t), "check", empty.URL)
	// A site where every page is missing is said to be so first, in one
	// sentence, once: the attempts are in the report.
	want := "tidings: cannot follow this site: every page answered 404 Not Found: check the address.\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
	if strings.Contains(r.stdout, "cannot follow this site") {
		t.Errorf("the failure is said on standard output too:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "[nothing-found]") || !strings.Contains(r.stdout, "Fix: Check the address: every document tidings asked for answered 404 Not Found. If it is right, publish a ResourceSync Source Description") {
		t.Errorf("output:\n%s", r.stdout)
	}

	// Nothing listens on a port just closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + l.Addr().String() + "/"
	l.Close()
	r = tidings(t, newEnv(t), "check", gone)
	if want := "tidings: cannot follow this site: the site refused the connection: nothing answers at this address.\n"; r.code != 1 || r.stderr != want ||
		!strings.Contains(r.stdout, "Fix: Check that the address is right and that the site answers") {
		t.Errorf("unreachable site: exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
	// What it asked for is listed once, robots.txt among them, and the
	// report stays short.
	if strings.Count(r.stdout, "robots.txt") != 1 || strings.Contains(r.stdout, "Where tidings looked") || len(r.stdout) > 2000 {
		t.Errorf("unreachable site: %d bytes of output:\n%s", len(r.stdout), r.stdout)
	}
}

// TestCheckRefusesLoopbackUnlessAllowed: one message, once, saying what
// whoever runs the check can do; nothing is fetched (the address policy
// refuses before any connection).
func TestCheckRefusesLoopbackUnlessAllowed(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(site.Close)
	r := tidings(t, newEnv(t, "TIDINGS_ALLOW_PRIVATE_ADDRESSES", ""), "check", site.URL)
	want := "tidings: 127.0.0.1 is a loopback address, which tidings does not fetch from: to check a site on this machine or your own network, " +
		"pass --allow-private-addresses (TIDINGS_ALLOW_PRIVATE_ADDRESSES=1)\n"
	if r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant only %q", r.code, r.stdout, r.stderr, want)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the site got %d requests", n)
	}
}

func TestCheckHelpListsItsFlagsOnly(t *testing.T) {
	t.Parallel()
	r := tidings(t, newEnv(t), "check", "--help")
	if r.code != 0 || !strings.HasPrefix(r.stderr, "Usage: tidings check URL\n") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"--allow-private-addresses (TIDINGS_ALLOW_PRIVATE_ADDRESSES)", "--strict-datetime", "--max-documents", "--page-fetches", "--base-url"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stderr)
		}
	}
	for _, not := range []string{"--db ", "--addr ", "--interval ", "--workers", "--discovery-interval"} {
		if strings.Contains(r.stderr, not) {
			t.Errorf("help lists %q, which check does not use:\n%s", not, r.stderr)
		}
	}
	if r := tidings(t, newEnv(t), "check"); r.code != 2 {
		t.Errorf("check without a URL: exit %d, want 2", r.code)
	}
}

// TestCheckOfASitePublishedByTidings: what tidings publish writes, served
// as a static host would, is followable and has nothing to fix.
func TestCheckOfASitePublishedByTidings(t *testing.T) {
	t.Parallel()
	dir := publishSite(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	mustSucceed(t, tidings(t, nil, "publish", dir, "--base-url", srv.URL, "--collection", "shrine/", "--datetime", "now"))
	writeFiles(t, dir, map[string]string{"shrine/a.html": "a, edited", "shrine/b.html": "<title>Bee</title>b"})
	mustSucceed(t, tidings(t, nil, "publish", dir, "--base-url", srv.URL, "--collection", "shrine/", "--datetime", "now"))
	r := tidings(t, newEnv(t), "check", srv.URL)
	mustSucceed(t, r)
	for _, want := range []string{"\nNo problems found.\n", "and found nothing to fix.\n", "Created: Bee\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestCheckPreviewsAQuietFirstHarvest: when every change is older than
// the first-harvest window, the preview still shows the latest ones.
func TestCheckPreviewsAQuietFirstHarvest(t *testing.T) {
	t.Parallel()
	site := newCheckSite(t, checksite.Good(time.Now().Add(-60*24*time.Hour)))
	r := tidings(t, newEnv(t), "check", site.URL)
	mustSucceed(t, r)
	for _, want := range []string{
		"3 changes, all older than 30 days: following it now keeps them as already seen, and its feed starts with the next change.",
		"What the feeds would show, newest first:\n",
		"  Updated: Page B\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestCheckOfACollectionThatIsNotThere(t *testing.T) {
	t.Parallel()
	docs := checksite.Good(time.Now())
	delete(docs, "/shrine/caps.xml")
	site := newCheckSite(t, docs)
	r := tidings(t, newEnv(t), "check", site.URL)
	want := "tidings: cannot follow this site: capability list " + site.URL + "/shrine/caps.xml returned 404 Not Found.\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", r.code, r.stderr, want)
	}
	if !strings.Contains(r.stdout, "[collection-failed] "+site.URL+"/shrine/caps.xml\n") {
		t.Errorf("output:\n%s", r.stdout)
	}
}

// TestCheckOfASiteJustPublished: before the site's first change, its
// collection still counts the pages of its resource list, the same on
// the command line as on the web page (both say sitecheck's sentence).
func TestCheckOfASiteJustPublished(t *testing.T) {
	t.Parallel()
	dir := publishSite(t)
	writeFiles(t, dir, map[string]string{"shrine/b.html": "b", "shrine/c.html": "c", "shrine/d.html": "d"})
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	mustSucceed(t, tidings(t, nil, "publish", dir, "--base-url", srv.URL, "--collection", "shrine/", "--datetime", "now"))
	r := tidings(t, newEnv(t), "check", srv.URL)
	mustSucceed(t, r)
	// The capability list, the resource list and the change list, each
	// read once by the collection's first harvest.
	for _, want := range []string{
		"    3 documents read; 5 pages listed in its resource list; no change yet, so its feed starts with the next change.\n",
		"  + " + srv.URL + "/resourcesync/shrine/resourcelist.xml is a resource list of 5 pages\n",
		"  + " + srv.URL + "/resourcesync/shrine/changelist.xml is a change list\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestCheckOfASiteThatPublishesNothing: a site tidings can only watch is
// followable, and its owner is pointed to tidings publish and a sitemap.
func TestCheckOfASiteThatPublishesNothing(t *testing.T) {
	t.Parallel()
	site := newCheckSite(t, map[string]string{"/": "<html><head><title>Moths</title></head><body><p>Moths.</p></body></html>"})
	r := tidings(t, newEnv(t), "check", site.URL)
	mustSucceed(t, r)
	for _, want := range []string{"Problems (1):\n", "[no-change-information] " + site.URL + "/\n", "tidings publish writes a ResourceSync change list", "a sitemap.xml giving each page's lastmod"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "No problems found") {
		t.Errorf("a site that publishes nothing has no problem:\n%s", r.stdout)
	}
}
