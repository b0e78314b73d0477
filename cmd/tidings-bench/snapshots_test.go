package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

func TestQuantile(t *testing.T) {
	s := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if got := quantile(s, 0.5); got != 6 {
		t.Errorf("median of 1..10: %d", got)
	}
	if got := quantile(s, 0.9); got != 10 {
		t.Errorf("p90 of 1..10: %d", got)
	}
	if got := quantile(nil, 0.5); got != 0 {
		t.Errorf("median of nothing: %d", got)
	}
}

func TestSnapshotSizes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	if _, err := seedSites(ctx, path, 1); err != nil {
		t.Fatal(err)
	}
	d, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO snapshots (site_id, url, title, text, content_hash, method, fetched_at)
		SELECT id, 'http://h/a', 'T', x'00010203', x'000102030405060708090a0b0c0d0e0f', 'article', '2026-01-01T00:00:00Z' FROM sites`,
		`INSERT INTO snapshots (site_id, url, fetched_at) SELECT id, 'http://h/b', '2026-01-01T00:00:00Z' FROM sites`,
		`UPDATE changes SET diff = '{"added":["x"]}' WHERE rowid = (SELECT min(rowid) FROM changes)`,
	} {
		if _, err := d.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	d.Close()
	sz, err := snapshotSizes(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	const fixed = len("2026-01-01T00:00:00Z") + 8*2
	if len(sz.rows) != 2 || sz.rows[0] != int64(len("http://h/b")+fixed) || sz.rows[1] != int64(4+len("http://h/a")+1+16+len("article")+fixed) {
		t.Errorf("rows %v", sz.rows)
	}
	if len(sz.text) != 2 || sz.text[0] != 0 || sz.text[1] != 4 {
		t.Errorf("text %v", sz.text)
	}
	if len(sz.perPage) != 2 || sz.perPage[1] != sz.rows[1] {
		t.Errorf("per page %v, rows %v: a page without a diff is its row", sz.perPage, sz.rows)
	}
	if len(sz.diffs) != 1 || sz.diffs[0] != int64(len(`{"added":["x"]}`)) {
		t.Errorf("diffs %v", sz.diffs)
	}
}
