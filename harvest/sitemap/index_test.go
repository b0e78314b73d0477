package sitemap

import (
	"context"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// TestSitemapIndexAskedConditionally: an index and its children that
// send ETags are asked conditionally. A harvest where all of them answer
// 304 reads no sitemap whole and stores nothing; when one child changes,
// its edit is found and the others are read again whole, so a page only
// they list is neither lost nor taken for gone; a page dropped from an
// unchanged-looking child is told when that child changes.
func TestSitemapIndexAskedConditionally(t *testing.T) {
	e := newSMEnv(t, harvest.SnapshotSettings{})
	e.Site.ETags(true)
	v1 := func() map[string]sitemapsite.Page {
		return map[string]sitemapsite.Page{
			"/":   {Title: "Home", Text: "Welcome to the garden.", Lastmod: "2026-11-01"},
			"/a/": {Title: "Roses", Text: "Roses need sun.", Lastmod: "2026-11-02"},
			"/x/": {Title: "Extra", Text: "A page the second sitemap lists.", Unlisted: true},
		}
	}
	e.Site.Version("", v1())
	e.Site.Robots("User-agent: *\nAllow: /\nSitemap: {root}/sitemap_index.xml\n")
	e.Site.Raw("/sitemap_index.xml", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>{root}/sitemap.xml</loc></sitemap>
<sitemap><loc>{root}/sitemap-extra.xml</loc></sitemap>
</sitemapindex>`)
	extra := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{root}/x/</loc><lastmod>2026-11-03</lastmod></url></urlset>`
	e.Site.Raw("/sitemap-extra.xml", extra)
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	// Each step reads only the rows stored since the one before: the
	// follow stored each page as created.
	told := len(e.Changes())
	since := func() []string {
		t.Helper()
		all := e.Changes()
		var out []string
		i := 0
		e.Store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
			if i >= told {
				out = append(out, c.Kind+" "+strings.TrimPrefix(c.URL, e.Site.Srv.URL))
			}
			i++
			return nil
		})
		told = len(all)
		return out
	}
	docs := []string{"/sitemap_index.xml", "/sitemap.xml", "/sitemap-extra.xml"}
	whole := func() []int {
		var n []int
		for _, d := range docs {
			n = append(n, e.Site.Whole(d))
		}
		return n
	}
	hits := func() []int {
		var n []int
		for _, d := range docs {
			n = append(n, e.Site.Hits(d))
		}
		return n
	}

	// Nothing changed: three 304s, nothing read whole, nothing stored.
	w0, h0 := whole(), hits()
	rep := e.Harvest()
	if w, h := whole(), hits(); !slices.Equal(w, w0) || !slices.Equal(h, []int{h0[0] + 1, h0[1] + 1, h0[2] + 1}) {
		t.Errorf("an unchanged index: whole answers %v → %v, requests %v → %v; want each asked once, none whole (warnings %q)",
			w0, w, h0, h, harvesttest.Warnings(rep))
	}
	if got := since(); len(got) != 0 {
		t.Errorf("an unchanged index stored %v", got)
	}

	// One child changed: its edit is found, the other child is read again
	// whole, and its page stays.
	v2 := v1()
	v2["/a/"] = sitemapsite.Page{Title: "Roses", Text: "Roses need sun and water.", Lastmod: "2026-11-21"}
	e.Site.Version("", v2)
	w1 := whole()
	rep = e.Harvest()
	if w := whole(); w[0] != w1[0] || w[1] != w1[1]+1 || w[2] != w1[2]+1 {
		t.Errorf("one child changed: whole answers %v → %v; want the index not, both children once (warnings %q)", w1, w, harvesttest.Warnings(rep))
	}
	if got := since(); !slices.Equal(got, []string{"updated /a/"}) {
		t.Fatalf("changes %v, want only the edit of /a/", got)
	}
	var edit db.ExportedChange
	e.Store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		if c.Kind == "updated" {
			edit = c
		}
		return nil
	})
	changetest.Text(t, edit, "Roses", "changed", []string{"Roses need sun."}, []string{"Roses need sun and water."})

	// The extra sitemap drops /x/, which is gone: told once.
	v3 := v2
	delete(v3, "/x/")
	e.Site.Version("", v3)
	e.Site.Raw("/sitemap-extra.xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`)
	e.Harvest()
	if got := since(); !slices.Equal(got, []string{"deleted /x/"}) {
		t.Errorf("changes %v, want /x/ deleted", got)
	}
	e.Harvest()
	if got := since(); len(got) != 0 {
		t.Errorf("a quiet harvest after: changes %v", got)
	}
}
