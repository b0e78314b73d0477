package sitemap

import (
	"fmt"
	"slices"
	"testing"

	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// TestPagesPastTheBudgetAreReadWhileTheSitemapIsUnchanged: a sitemap with
// real lastmods where more pages moved than --page-fetches reads the rest
// at the next harvests, also when the sitemap answers 304 then; every
// change is found, each once.
func TestPagesPastTheBudgetAreReadWhileTheSitemapIsUnchanged(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{PageFetches: 5})
	e.Site.ETags(true)
	version := func(day string, edit bool) map[string]sitemapsite.Page {
		v := map[string]sitemapsite.Page{}
		for i := range 13 {
			p := sitemapsite.Page{Title: fmt.Sprintf("Moth %d", i), Text: fmt.Sprintf("Moth %d is brown.", i), Lastmod: "2026-11-01T00:00:00Z"}
			if edit {
				p.Text, p.Lastmod = fmt.Sprintf("Moth %d is grey.", i), day
			}
			v[fmt.Sprintf("/m%d/", i)] = p
		}
		// A home page that the edit leaves alone: its lastmod differs
		// from the moths', so the dates are the pages' own.
		v["/"] = sitemapsite.Page{Title: "Moths", Text: "All the moths.", Lastmod: "2026-10-01T00:00:00Z"}
		return v
	}
	e.Site.Version("", version("", false))
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	e.Site.Version("", version("2026-11-21T08:00:00Z", true))
	var runs [][]string
	for range 4 {
		rep := e.Harvest()
		runs = append(runs, harvesttest.Warnings(rep))
	}
	updated := e.Changes()
	var want []string
	for i := range 13 {
		want = append(want, fmt.Sprintf("updated /m%d/", i))
	}
	slices.Sort(want)
	if !slices.Equal(updated, want) {
		t.Errorf("changes %v, want the 13 updates, each once; warnings by harvest %q", updated, runs)
	}
	if n := e.Site.Hits("/sitemap.xml"); n != 5 {
		t.Errorf("the sitemap was asked %d times in five harvests", n)
	}
}

// TestTheSitemapIsReadConditionally: the sitemap is streamed into its
// parser rather than held, and still asked for conditionally: a harvest
// after an unchanged one is a 304, and a changed sitemap is read again.
func TestTheSitemapIsReadConditionally(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	e.Site.ETags(true)
	e.Site.Version("", sitemapShrine())
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	run := e.Harvest().Collections[0].Run
	if run.NotModified < 1 {
		t.Errorf("the harvest after the follow: %d documents, %d of them 304; want the sitemap's 304", run.Documents, run.NotModified)
	}
	v2 := sitemapShrine()
	v2["/e/"] = sitemapsite.Page{Title: "Io moth", Text: "The io moth has eyespots."}
	e.Site.Version("", v2)
	e.Harvest()
	if got := e.Changes(); !slices.Contains(got, "created /e/") {
		t.Errorf("changes %v, want the new page /e/ created", got)
	}
}

// TestUndatedPagesAreAllAskedForEachHarvest: a sitemap without lastmods
// says nothing of what changed, so its pages are read again in turn; a
// page that answers 304 does not count against --page-fetches, nor does
// one a server without validators sends again byte for byte, so a
// harvest asks for every page and finds the one edit, whichever it is.
// The edited page is asked for once more, to tell an edit from a widget
// that changes at every read (readAgain).
func TestUndatedPagesAreAllAskedForEachHarvest(t *testing.T) {
	for _, etags := range []bool{true, false} {
		e := newSMEnv(t, harvest.SnapshotSettings{PageFetches: 5})
		e.Site.ETags(etags)
		version := func(edited int) map[string]sitemapsite.Page {
			v := map[string]sitemapsite.Page{}
			for i := range 30 {
				p := sitemapsite.Page{Title: fmt.Sprintf("Moth %d", i), Text: fmt.Sprintf("Moth %d is brown.", i)}
				if i == edited {
					p.Text = fmt.Sprintf("Moth %d is grey.", i)
				}
				v[fmt.Sprintf("/m%d/", i)] = p
			}
			return v
		}
		e.Site.Version("", version(-1))
		harvesttest.Follow(t, e.H, e.Site.URL("/"))
		// The follow and the harvests after it read every page once.
		for range 6 {
			e.Harvest()
		}
		e.Site.Version("", version(23))
		before := map[string]int{}
		for i := range 30 {
			p := fmt.Sprintf("/m%d/", i)
			before[p] = e.Site.Hits(p)
		}
		e.Harvest()
		if got := e.Changes(); !slices.Equal(got, []string{"updated /m23/"}) {
			t.Errorf("validators %v: changes %v, want the edit found in the first harvest after it", etags, got)
		}
		for p, n := range before {
			want := 1
			if p == "/m23/" {
				want = 2
			}
			if got := e.Site.Hits(p) - n; got != want {
				t.Errorf("validators %v: %s asked for %d times in the harvest, want %d", etags, p, got, want)
			}
		}
	}
}
