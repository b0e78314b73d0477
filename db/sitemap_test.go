package db

import (
	"context"
	"testing"
	"time"
)

// TestPageChecks stores a harvest that lists two pages and checks one,
// then a later one that checks the other: each page keeps its own time,
// and a page stored again without a check keeps the one it had.
func TestPageChecks(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	site, err := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/shrine/"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := d.SyncCollections(ctx, site.ID, []CollectionSpec{{Protocol: "sitemap", Key: "https://example.org/shrine/", SourceURL: "https://example.org/shrine/sitemap.xml"}})
	if err != nil {
		t.Fatal(err)
	}
	col := cols[0].ID
	t1 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	t2 := t1.Add(24 * time.Hour)
	save := func(at time.Time, pages []Page, checked map[string]time.Time) {
		t.Helper()
		_, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
			Run:   Run{SiteID: site.ID, CollectionID: col, StartedAt: at, FinishedAt: at},
			Pages: pages, Checked: checked,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := "https://example.org/shrine/a", "https://example.org/shrine/b"
	save(t1, []Page{{URL: a}, {URL: b}}, map[string]time.Time{a: t1})
	got, err := d.PageChecks(ctx, col)
	if err != nil || len(got) != 1 || !got[a].Equal(t1) {
		t.Fatalf("after the first harvest: %v, %v; want only %s at %s", got, err, a, t1)
	}
	save(t2, []Page{{URL: a, Title: "A"}}, map[string]time.Time{b: t2})
	got, err = d.PageChecks(ctx, col)
	if err != nil || len(got) != 2 || !got[a].Equal(t1) || !got[b].Equal(t2) {
		t.Fatalf("after the second harvest: %v, %v", got, err)
	}
}

// undoPageChecks rewinds the migration of page checks, and the columns
// of later ones, for tests of earlier ones.
var undoPageChecks = append(append(append(undoSharing, undoHandOver...), undoRetention...), "ALTER TABLE pages DROP COLUMN checked_at")

// undoRulesOff rewinds migration 22, rules switched off.
var undoRulesOff = []string{"ALTER TABLE ignore_rules DROP COLUMN off_reason"}

// undoSharing rewinds migration 21, host leases and discovery claims, and
// the later ones.
var undoSharing = append(undoRulesOff[:len(undoRulesOff):len(undoRulesOff)], "DROP TABLE host_leases", "DROP INDEX discoveries_pending",
	"ALTER TABLE discoveries DROP COLUMN claimed_by", "ALTER TABLE discoveries DROP COLUMN claimed_until")

// undoHandOver rewinds migration 17, collections handed over.
var undoHandOver = []string{"ALTER TABLE collections DROP COLUMN handed_over"}

// undoRetention rewinds migration 16, the retention sweep's columns.
var undoRetention = []string{"ALTER TABLE collections DROP COLUMN pruned_until",
	"ALTER TABLE sites DROP COLUMN stored_bytes", "ALTER TABLE sites DROP COLUMN measured_at"}
