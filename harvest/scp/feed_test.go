package scp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/scpsite"
)

// TestSCPFeedsShowTitlesAndDescriptions follows an SCP site as the form and
// the CLI do (Harvester.Follow) and reads our Atom back with gofeed: per
// page, entries are titled by the page and summarised by its description;
// the digest lists titles.
func TestSCPFeedsShowTitlesAndDescriptions(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	site := scpsite.New()
	defer site.Close()
	page := func(path, title string, age time.Duration) scpsite.Page {
		return scpsite.NewPage(site.URL+path, title, "About "+title, now.Add(-age))
	}
	gen := now.Add(-time.Hour).Format(time.RFC3339)
	file := scpsite.File(scpsite.Meta{"id": "blog", "section": "blog", "type": "snapshot", "generated": gen, "version": "0.1"},
		scpsite.ChecksumAfterMetadata, page("/blog/a", "Alpha", 48*time.Hour), page("/blog/c", "Gamma <3", 24*time.Hour),
		page("/blog/b", "Beta", 60*24*time.Hour))
	site.Set("/blog.scp.zst", scpsite.Zstd(file))
	site.SetText("/sitemap.xml", scpsite.Sitemap("scp", scpsite.Element("scp", "collection", "section", "blog", "type", "snapshot",
		"url", "{{.Base}}/blog.scp.zst", "generated", gen, "expires", now.Add(48*time.Hour).Format(time.RFC3339), "pages", "3", "size", "900")))
	store, h := harvesttest.New(t, harvest.Options{Now: func() time.Time { return now }})
	rep, err := h.Follow(context.Background(), site.URL)
	if err != nil || len(rep.Collections) != 1 || rep.Collections[0].Run.Changes != 2 {
		t.Fatalf("follow: %v %+v", err, rep)
	}
	blog := rep.Collections[0].Collection
	get := func(perPage bool) *gofeed.Feed {
		t.Helper()
		f, err := gofeed.NewParser().ParseString(harvesttest.CollectionAtom(t, store, blog.ID, perPage))
		if err != nil {
			t.Fatalf("feed (per page: %v): %v", perPage, err)
		}
		return f
	}
	perPage := get(true)
	found := map[string]*gofeed.Item{}
	for _, it := range perPage.Items {
		found[it.Link] = it
	}
	alpha := found[site.URL+"/blog/a"]
	// The two changes, and the entry of the collection's first harvest.
	if alpha == nil || len(perPage.Items) != 3 {
		t.Fatalf("per-page entries %d: %v", len(perPage.Items), found)
	}
	if !strings.Contains(alpha.Title, "Alpha") {
		t.Errorf("entry title %q, want the page's title", alpha.Title)
	}
	if !strings.Contains(alpha.Description+alpha.Content, "About Alpha") {
		t.Errorf("entry summary %q / content %q, want the page's description", alpha.Description, alpha.Content)
	}
	digest := get(false)
	if len(digest.Items) != 1 {
		t.Fatalf("digest entries %d", len(digest.Items))
	}
	body := digest.Items[0].Content + digest.Items[0].Description
	for _, title := range []string{"Alpha", "Gamma &lt;3"} {
		if !strings.Contains(body, title) {
			t.Errorf("digest does not list %q:\n%s", title, body)
		}
	}
}
