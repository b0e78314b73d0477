package sitecheck

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/scpsite"
	"tidings/internal/sitemapsite"
)

// testChecker opens a fresh database, the harvester a check takes its
// settings from, over a client that may fetch from loopback for the
// tests' own sites. The store is the harvester's, which a check must
// leave as it was.
func testChecker(t *testing.T, o harvest.Options) (*db.DB, *Checker) {
	t.Helper()
	store, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	if o.Snapshots == (harvest.SnapshotSettings{}) {
		// The fixture sites serve the change information, not the pages:
		// the tests that read pages say so.
		o.Snapshots.Off = true
	}
	return store, New(harvest.New(client, store, o))
}

// scpSection serves an SCP sitemap listing one snapshot of the section
// blog at path, generated at gen, with the items given.
func scpSection(t *testing.T, path string, gen time.Time, items func(site *scpsite.Site) []any) *scpsite.Site {
	t.Helper()
	site := scpsite.New()
	t.Cleanup(site.Close)
	snap := scpsite.Element("s", "collection", "section", "blog", "type", "snapshot", "url", "{{.Base}}"+path,
		"generated", gen.Format(time.RFC3339), "expires", gen.Add(30*24*time.Hour).Format(time.RFC3339), "pages", "3", "size", "1000")
	site.SetText("/sitemap.xml", scpsite.Sitemap("s", "<s:version>0.1</s:version>", "<s:compression>zstd,gzip</s:compression>",
		scpsite.Element("s", "section", "name", "blog", "updateFreq", "daily", "pages", "~10"), snap))
	meta := scpsite.Meta{"id": strings.Trim(strings.NewReplacer("/", "-", ".", "-").Replace(path), "-"),
		"section": "blog", "type": "snapshot", "generated": gen.Format(time.RFC3339), "version": "0.1"}
	site.Set(path, scpsite.Zstd(scpsite.File(meta, 0, items(site)...)))
	return site
}

// sitemapShrine is a small site with only a plain sitemap.
func sitemapShrine() map[string]sitemapsite.Page {
	return map[string]sitemapsite.Page{
		"/":   {Title: "The Shrine", Text: "Welcome to my shrine to moths.\nPlease sign the guestbook."},
		"/a/": {Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about a week."},
		"/b/": {Title: "Atlas moth", Text: "The atlas moth is one of the largest moths."},
		"/c/": {Title: "Links", Text: "Other moth shrines I like."},
		"/d/": {Title: "Old news", Text: "This page will go away."},
	}
}
