package web

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feedbuild"
)

// longSite stores a site of one collection with 24 harvests a day apart,
// harvest i changing the page p<i>.html, so that its pages have more
// changes and harvests than they show at once.
func longSite(t *testing.T, store *db.DB, harvests int) (db.Site, db.Collection) {
	t.Helper()
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://long.example/", InputURL: "https://long.example/", Title: "The Long Shrine"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "scp", Key: "https://long.example/", SourceURL: "https://long.example/site.scp.gz", Title: "Long pages"}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().Add(-time.Duration(harvests+1) * 24 * time.Hour).Truncate(time.Second)
	for i := range harvests {
		at := start.Add(time.Duration(i) * 24 * time.Hour)
		if _, err := store.SaveSiteHarvest(ctx, db.Run{SiteID: site.ID, StartedAt: at, FinishedAt: at.Add(time.Second), Documents: 1}, nil); err != nil {
			t.Fatal(err)
		}
		run := db.Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: at.Add(time.Second), FinishedAt: at.Add(2 * time.Second), Documents: 2}
		ch := db.Change{URL: fmt.Sprintf("https://long.example/p%d.html", i), Kind: "updated", Datetime: at, Title: fmt.Sprintf("Page %d", i)}
		if _, err := store.SaveCollectionHarvest(ctx, db.CollectionHarvest{Run: run, Changes: []db.Change{ch}}); err != nil {
			t.Fatal(err)
		}
	}
	return site, cols[0]
}

var (
	pageTitle = regexp.MustCompile(`<a class="page" href="[^"]*" rel="nofollow noopener">(Page \d+)</a>`)
	olderLink = regexp.MustCompile(`<a href="([^"]*)" rel="next">Older changes →</a>`)
)

// TestLongPagesArePaged: a site's page shows its 10 newest changes and 5
// newest harvests, a collection's its 15 newest changes, newest first,
// each with a link to the older ones, whose pages go on where the one
// before stopped and link back to the newest; every page keeps its feed
// links at the top.
func TestLongPagesArePaged(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{})
	site, col := longSite(t, a.store, 24)
	c := a.client(t, "192.0.2.41")

	walk := func(first string, feed string) [][]string {
		t.Helper()
		var pages [][]string
		for next := first; next != ""; {
			// A browser keeps the #fragment to itself.
			path, _, _ := strings.Cut(strings.TrimPrefix(next, testBase), "#")
			body := html.UnescapeString(c.get(path).Body.String())
			var titles []string
			for _, m := range pageTitle.FindAllStringSubmatch(body, -1) {
				titles = append(titles, m[1])
			}
			pages = append(pages, titles)
			main, _, _ := strings.Cut(body, `id="changes"`)
			if !strings.Contains(main, feed) {
				t.Errorf("%s: the feed %s is not above the changes", next, feed)
			}
			if len(pages) > 1 && !strings.Contains(body, `rel="first">← Newest changes</a>`) {
				t.Errorf("%s: no link back to the newest changes", next)
			}
			next = ""
			if m := olderLink.FindStringSubmatch(body); m != nil {
				next = m[1]
			}
			if len(pages) > 5 {
				t.Fatal("more than 5 pages of 24 changes")
			}
		}
		return pages
	}
	want := func(from, to int) []string {
		var out []string
		for i := from; i >= to; i-- {
			out = append(out, fmt.Sprintf("Page %d", i))
		}
		return out
	}
	sitePages := walk("/site/"+site.PublicID, feedbuild.SiteFeedPath(site))
	if fmt.Sprint(sitePages) != fmt.Sprint([][]string{want(23, 14), want(13, 4), want(3, 0)}) {
		t.Errorf("the site's pages of changes:\n%q\nwant 10, 10 and 4, newest first", sitePages)
	}
	colPages := walk("/collection/"+col.PublicID, feedbuild.CollectionFeedPath(col))
	if fmt.Sprint(colPages) != fmt.Sprint([][]string{want(23, 9), want(8, 0)}) {
		t.Errorf("the collection's pages of changes:\n%q\nwant 15 and 9, newest first", colPages)
	}

	rows := regexp.MustCompile(`<tr><td data-label="Finished">`)
	body := c.get("/site/" + site.PublicID).Body.String()
	if n := len(rows.FindAllString(body, -1)); n != 5 || !strings.Contains(body, `?history=all#history">Show the last 50 harvests</a>`) {
		t.Errorf("the site page shows %d harvests, want the 5 newest and a link to more", n)
	}
	body = c.get("/site/" + site.PublicID + "?history=all").Body.String()
	if n := len(rows.FindAllString(body, -1)); n != 24 || strings.Contains(body, "Show the last 50 harvests") {
		t.Errorf("with history=all the site page shows %d harvests, want all 24 and no link to more", n)
	}
	// A bound that cannot be read is the first page.
	body = html.UnescapeString(c.get("/site/" + site.PublicID + "?before=yesterday").Body.String())
	if m := pageTitle.FindStringSubmatch(body); m == nil || m[1] != "Page 23" {
		t.Errorf("before=yesterday does not show the newest changes")
	}
}
