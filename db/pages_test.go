package db

import (
	"context"
	"testing"
	"time"
)

// TestMigrationEightMovesSCPTitlesOutOfHash opens a database at schema 7
// holding pages as SCP stored them then, "<sha256 hex> <JSON [title,
// summary]>" in hash, and checks that the migration moves the pair into
// its columns and leaves the digest alone, and that no other protocol's
// hash is touched.
func TestMigrationEightMovesSCPTitlesOutOfHash(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	d, path := openTest(t)
	site, err := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := d.SyncCollections(ctx, site.ID, []CollectionSpec{
		{Protocol: "scp", Key: "https://example.org/sitemap.xml#blog", SourceURL: "https://example.org/sitemap.xml"},
		{Protocol: "arc", Key: "https://example.org/arc-sitemap.json", SourceURL: "https://example.org/arc-sitemap.json"},
	})
	if err != nil || len(cols) != 2 {
		t.Fatalf("sync: %v, %v", cols, err)
	}
	scp, arc := cols[0].ID, cols[1].ID
	if cols[0].Protocol != "scp" {
		scp, arc = arc, scp
	}
	digest := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for _, q := range append(undoMigrationNine, "ALTER TABLE pages DROP COLUMN title", "ALTER TABLE pages DROP COLUMN summary", "PRAGMA user_version = 7") {
		if _, err := d.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rows := []struct {
		col       int64
		url, hash string
	}{
		{scp, "https://example.org/a", digest + ` ["Alpha","The first page"]`},
		// encoding/json escapes <, > and & and keeps other text as UTF-8.
		{scp, "https://example.org/b", digest + ` ["Fish \u0026 \u003cchips\u003e","Caf\u00e9 – \"quoted\""]`},
		{scp, "https://example.org/c", digest + ` ["",""]`},
		{scp, "https://example.org/d", digest},
		{arc, "https://example.org/e", "sha256 with spaces"},
	}
	mod := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	for _, r := range rows {
		_, err := d.w.ExecContext(ctx, `INSERT INTO pages (collection_id, url, modified, hash) VALUES (?, ?, ?, ?)`,
			r.col, r.url, fmtTime(mod), r.hash)
		if err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	scpPages, err := again.Pages(ctx, scp)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Page{
		"https://example.org/a": {Hash: digest, Title: "Alpha", Summary: "The first page"},
		"https://example.org/b": {Hash: digest, Title: "Fish & <chips>", Summary: `Café – "quoted"`},
		"https://example.org/c": {Hash: digest},
		"https://example.org/d": {Hash: digest},
	}
	for u, w := range want {
		got, ok := scpPages[u]
		if !ok || got.Hash != w.Hash || got.Title != w.Title || got.Summary != w.Summary || got.Modified == nil || !got.Modified.Equal(mod) {
			t.Errorf("%s after migration: %+v, want %+v", u, got, w)
		}
	}
	arcPages, err := again.Pages(ctx, arc)
	if err != nil {
		t.Fatal(err)
	}
	if p := arcPages["https://example.org/e"]; p.Hash != "sha256 with spaces" || p.Title != "" || p.Summary != "" {
		t.Errorf("an ARC page was rewritten: %+v", p)
	}
}

// TestPagesKeepTitleAndSummary: what a harvest stores of a page's title
// and summary is what the next one reads, and a later save replaces it.
func TestPagesKeepTitleAndSummary(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "gallery")
	now := time.Now()
	run := Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: now, FinishedAt: now}
	save := func(p Page) {
		t.Helper()
		if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{Run: run, Pages: []Page{p}}); err != nil {
			t.Fatal(err)
		}
	}
	save(Page{URL: "https://gallery.example/a", Hash: "h1", Title: "First", Summary: "One"})
	save(Page{URL: "https://gallery.example/a", Hash: "h2", Title: "Second"})
	pages, err := d.Pages(ctx, col.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p := pages["https://gallery.example/a"]; len(pages) != 1 || p.Hash != "h2" || p.Title != "Second" || p.Summary != "" {
		t.Errorf("pages: %+v", pages)
	}
}
