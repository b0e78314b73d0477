package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"tidings/internal/sitemapsite"
)

// TestFollowPlainSitemap: a static site that publishes only a sitemap,
// whose generator stamps every lastmod with the build, is followed by
// its sitemap (exit 0, the protocol printed), harvested after a second
// build, and exports exactly the page created, the page whose text
// changed and the page deleted; its feed says how it is made.
func TestFollowPlainSitemap(t *testing.T) {
	t.Parallel()
	site := sitemapsite.New()
	t.Cleanup(site.Close)
	build := func(ago time.Duration) string {
		return time.Now().UTC().Add(-ago).Truncate(time.Second).Format(time.RFC3339)
	}
	v1 := map[string]sitemapsite.Page{
		"/":   {Title: "Moth Shrine", Text: "Welcome to my shrine to moths."},
		"/a/": {Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about a week."},
		"/b/": {Title: "Atlas moth", Text: "The atlas moth is one of the largest moths."},
		"/d/": {Title: "Old news", Text: "This page will go away."},
	}
	site.Version(build(2*time.Hour), v1)
	env := newEnv(t)
	r := tidings(t, env, "follow", site.URL("/"))
	mustSucceed(t, r)
	if want := "    protocol sitemap: follows the sitemap, confirmed by reading pages\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("follow's output lacks %q:\n%s", want, r.stdout)
	}
	r = tidings(t, env, "feeds", "--json")
	mustSucceed(t, r)
	var f feedLine
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &f); err != nil || f.Protocol != "sitemap" || f.Key != site.URL("/") {
		t.Fatalf("feeds --json: %v, %+v", err, f)
	}
	if got := exportChanges(t, env); len(got) != 0 {
		t.Errorf("the first harvest exported %v; want the pages recorded as seen", got)
	}
	// The harvest the follow left due reads the pages' first texts.
	mustSucceed(t, tidings(t, env, "harvest"))

	v2 := map[string]sitemapsite.Page{
		"/":   v1["/"],
		"/a/": {Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about ten days."},
		"/b/": v1["/b/"],
		"/e/": {Title: "Guestbook", Text: "Thank you for visiting."},
	}
	site.Version(build(time.Hour), v2)
	mustSucceed(t, tidings(t, env, "harvest", "--all"))
	var got []string
	for _, c := range exportChanges(t, env) {
		got = append(got, c.Change+" "+strings.TrimPrefix(c.URL, site.Srv.URL))
	}
	slices.Sort(got)
	if want := []string{"created /e/", "deleted /d/", "updated /a/"}; !slices.Equal(got, want) {
		t.Errorf("export changes: %v, want %v", got, want)
	}

	base := strings.TrimSuffix(serveInProcess(t, env, "--no-scheduler"), "/")
	feed, err := gofeed.NewParser().ParseString(fetchBody(t, base+public(t, env["TIDINGS_DB"], "/feeds/1.atom?entries=page")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(feed.Description, "follows the sitemap, confirmed by reading pages") {
		t.Errorf("the feed's subtitle %q does not say how it is made", feed.Description)
	}
	var titles []string
	for _, it := range feed.Items {
		titles = append(titles, it.Title)
	}
	slices.Sort(titles)
	// Beside the changes, the first harvest's entry, naming the pages the
	// sitemap listed then (four).
	if want := []string{"Created: Guestbook", "Deleted: Old news", "Now following Moth Shrine: 4 pages", "Updated: Luna moth"}; !slices.Equal(titles, want) {
		t.Errorf("feed entries %q, want %q", titles, want)
	}
}
