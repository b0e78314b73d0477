package sitemap

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
	"tidings/pagetext"
)

// TestCSSRulesOnASitemapSite: CSS rules apply to every page tidings
// reads, whatever the source. On a site followed by its sitemap, the rule
// for everyone ".promo" leaves a banner's change out of every feed, and
// Ann's own ".mood" leaves the mood widget's change out of hers alone; a
// real edit made with both still shows, its diff without them.
func TestCSSRulesOnASitemapSite(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	ctx := context.Background()
	// Pages of a few paragraphs, so that readability's article is the
	// same with the banner or without it.
	v := sitemapShrine()
	for p, page := range v {
		page.Text += "\nA longer paragraph about moths, their wings and their flight at night.\nAnd one more line of the page's own text."
		v[p] = page
	}
	// The banner changes on every page at once, the mood on /b/ alone
	// (a line that changes on many pages at once is learned as noise).
	version := func(stamp, promo, mood string, edit map[string]string) {
		for p, page := range v {
			page.Aside = `<div class="promo"><p>` + promo + `</p></div>`
			if p == "/b/" {
				page.Aside += `<div class="mood"><p>Mood: ` + mood + `</p></div>`
			}
			page.Lastmod = stamp
			if more, ok := edit[p]; ok {
				page.Text += "\n" + more
			}
			v[p] = page
		}
		e.Site.Version("", v)
	}
	version("2026-11-01T00:00:00Z", "Spring sale on moth posters.", "sleepy", nil)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	site, err := e.Store.SiteByURL(ctx, e.Site.URL("/"))
	if err != nil {
		t.Fatal(err)
	}
	ann, err := e.Store.CreateUser(ctx, "ann", "x", "token-ann", "")
	if err == nil {
		err = e.Store.Follow(ctx, ann.ID, site.ID)
	}
	if err != nil {
		t.Fatal(err)
	}
	for owner, rule := range map[int64]string{0: ".promo", ann.ID: ".mood"} {
		if _, err := e.Store.AddIgnoreRule(ctx, site.ID, owner, db.IgnoreCSS, rule, e.Now); err != nil {
			t.Fatal(err)
		}
	}
	// The rules were given after the pages were read: the next harvest
	// compares them once more with their texts as they were.
	e.Now = e.Now.Add(time.Hour)
	version("2026-11-21T00:00:00Z", "Summer sale on moth mugs.", "sleepy", nil)
	e.Harvest()
	if got := updated(e); len(got) != 0 {
		t.Errorf("a banner's change made entries %q", got)
	}

	version("2026-11-22T00:00:00Z", "Summer sale on moth mugs.", "happy", nil)
	e.Harvest()
	if got := updated(e); !slices.Equal(got, []string{"/b/"}) {
		t.Errorf("the mood's change made entries %q in the site's feed, want /b/", got)
	}
	if got := feedFor(t, e, db.Scope{UserID: ann.ID}); len(got) != 0 {
		t.Errorf("Ann's feed has %q, want none of the mood's changes", got)
	}

	version("2026-11-23T00:00:00Z", "Autumn sale on moth books.", "grumpy", map[string]string{"/b/": "It flies at night."})
	e.Harvest()
	c := exported(t, e, "/b/", "2026-11-23")
	changetest.Text(t, c, "Atlas moth", db.TextChanged, []string{"Mood: happy"}, []string{"It flies at night.", "Mood: grumpy"})
	if got := feedFor(t, e, db.Scope{UserID: ann.ID}); !slices.Equal(got, []string{"/b/"}) {
		t.Errorf("Ann's feed has %q, want the edit of /b/ alone", got)
	}
}

// updated lists the updated changes stored, as paths.
func updated(e *harvesttest.ListEnv) []string {
	var out []string
	for _, c := range e.Changes() {
		if p, ok := strings.CutPrefix(c, "updated "); ok {
			out = append(out, p)
		}
	}
	return out
}

// feedFor lists the paths of the updated changes a scope's feed shows.
func feedFor(t *testing.T, e *harvesttest.ListEnv, scope db.Scope) []string {
	t.Helper()
	cs, err := e.Store.FeedChanges(context.Background(), scope, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		if c.Kind == "updated" {
			out = append(out, strings.TrimPrefix(c.URL, e.Site.Srv.URL))
		}
	}
	slices.Sort(out)
	return out
}

// exported is the updated change of path dated on day.
func exported(t *testing.T, e *harvesttest.ListEnv, path, day string) db.ExportedChange {
	t.Helper()
	var found db.ExportedChange
	e.Store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		if c.Kind == "updated" && strings.HasSuffix(c.URL, path) && strings.HasPrefix(c.Datetime.UTC().Format(time.RFC3339), day) {
			found = c
		}
		return nil
	})
	if found.URL == "" {
		t.Fatalf("no updated change of %s on %s", path, day)
	}
	return found
}

// TestEditWithoutItsLastmodIsFound: a sitemap whose pages carry dates of
// their own; one page is edited while its <lastmod> stays. Harvested
// daily, the edit is found within a week, with its words, and the pages
// whose dates did not move are read again once in that week, not daily.
func TestEditWithoutItsLastmodIsFound(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	v := sitemapShrine()
	day := 1
	for p, page := range v {
		page.Text += "\nA longer paragraph about moths, their wings and their flight at night."
		page.Lastmod = fmt.Sprintf("2026-10-%02dT00:00:00Z", day)
		day++
		v[p] = page
	}
	e.Site.Version("", v)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	e.Harvest()
	page := v["/b/"]
	page.Text = strings.Replace(page.Text, "one of the largest moths.", "one of the largest moths in the world.", 1)
	v["/b/"] = page
	e.Site.Version("", v)
	before := e.Site.Hits("/c/")
	for range 7 {
		e.Harvest()
	}
	if !slices.Contains(updated(e), "/b/") {
		t.Fatalf("a week of harvests found no edit of /b/: %q", e.Changes())
	}
	var c db.ExportedChange
	e.Store.ExportChanges(context.Background(), db.ExportFilter{}, func(x db.ExportedChange) error {
		if x.Kind == "updated" && strings.HasSuffix(x.URL, "/b/") {
			c = x
		}
		return nil
	})
	changetest.Text(t, c, "Atlas moth", db.TextChanged, []string{"The atlas moth is one of the largest moths."},
		[]string{"The atlas moth is one of the largest moths in the world."})
	if n := e.Site.Hits("/c/") - before; n != 1 {
		t.Errorf("/c/, whose date did not move, was asked for %d times in a week, want once", n)
	}
}

// TestABigRewriteStoresItsCounts: a page of 80 KB rewritten whole: its
// change stores the counts of what was replaced and the new text's hash,
// not both texts (which cost the database twice the page at every
// change).
func TestABigRewriteStoresItsCounts(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	v := sitemapShrine()
	big := func(word string) string {
		var b strings.Builder
		for i := 0; b.Len() < 80<<10; i++ {
			fmt.Fprintf(&b, "Line %d of the %s moth notes, with words enough to fill a long page.\n", i, word)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	v["/notes/"] = sitemapsite.Page{Title: "Notes", Text: big("luna"), Lastmod: "2026-11-01T00:00:00Z"}
	e.Site.Version("", v)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	v["/notes/"] = sitemapsite.Page{Title: "Notes", Text: big("atlas"), Lastmod: "2026-11-21T00:00:00Z"}
	e.Site.Version("", v)
	e.Harvest()
	c := exported(t, e, "/notes/", "2026-11-21")
	var d pagetext.Diff
	if err := json.Unmarshal([]byte(c.Diff), &d); err != nil {
		t.Fatal(err)
	}
	if len(c.Diff) > 1<<10 || d.Replaced == "" || d.Added < 1000 || d.Removed < 1000 {
		t.Errorf("stored diff of %d bytes (replaced %q, %d added, %d removed), want the counts alone", len(c.Diff), d.Replaced, d.Added, d.Removed)
	}
}

// TestDatedPagesAreReadAgainInShares: the pages of a 70-page site, all
// read at the follow and none of whose dates move, are read again a share
// at a time, about a seventh a daily harvest, not all on the day a week
// after the follow; and each is read within 7 days.
func TestDatedPagesAreReadAgainInShares(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	e.Site.ETags(true)
	v := map[string]sitemapsite.Page{}
	var paths []string
	for i := range 70 {
		p := fmt.Sprintf("/moths/%02d/", i)
		paths = append(paths, p)
		v[p] = sitemapsite.Page{Title: fmt.Sprintf("Moth %d", i), Text: fmt.Sprintf("Notes on moth %d, seen at the lamp in June.", i),
			Lastmod: fmt.Sprintf("2025-%02d-%02dT00:00:00Z", i%12+1, i%28+1)}
	}
	e.Site.Version("", v)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	e.Harvest()
	last := map[string]int{}
	for day := 1; day <= 14; day++ {
		before := map[string]int{}
		for _, p := range paths {
			before[p] = e.Site.Hits(p)
		}
		e.Harvest()
		read := 0
		for _, p := range paths {
			if e.Site.Hits(p) > before[p] {
				read++
				if gap := day - last[p]; gap > 7 {
					t.Errorf("%s read again on day %d, %d days after the last time, want at most 7", p, day, gap)
				}
				last[p] = day
			}
		}
		if read > 11 {
			t.Errorf("day %d: %d of 70 pages read again, want about a seventh (10)", day, read)
		}
	}
	for _, p := range paths {
		if 14-last[p] > 7 {
			t.Errorf("%s last read on day %d of 14", p, last[p])
		}
	}
	if slices.ContainsFunc(e.Changes(), func(c string) bool { return strings.HasPrefix(c, "updated") }) {
		t.Errorf("unchanged pages reported updated: %q", e.Changes())
	}
}
