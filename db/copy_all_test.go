package db

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/internal/pgtest"
)

// TestCopyEveryTable: a database with rows in every table of its schema,
// push targets and the outbox that points to them included, is copied
// SQLite → PostgreSQL → SQLite (SQLite → SQLite without a PostgreSQL
// server) whole, each table with the rows it had. A table a migration
// adds fails this test until fillEveryTable gives it a row: a copy
// tested without one would prove nothing of it.
func TestCopyEveryTable(t *testing.T) {
	if testPostgres {
		t.Skip("the SQLite round copies to PostgreSQL and back")
	}
	ctx := context.Background()
	src, _ := openTest(t)
	fillEveryTable(t, src)
	want := dumpTables(t, src)
	for table, rows := range want {
		if len(rows) == 0 {
			t.Errorf("table %s has no rows: give it one in fillEveryTable", table)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	hops := []string{filepath.Join(t.TempDir(), "copy.db")}
	if server, _ := pgtest.Server(); server != "" {
		hops = []string{pgtest.NewDatabase(t), filepath.Join(t.TempDir(), "back.db")}
	}
	from := src
	for _, to := range hops {
		counts, err := Copy(ctx, from, to)
		if err != nil {
			t.Fatalf("copy to %s: %v", Redact(to), err)
		}
		d, err := Open(ctx, to)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		got := dumpTables(t, d)
		if len(counts) != len(want) || len(got) != len(want) {
			t.Errorf("%s: copied %d tables, holds %d; want %d", Redact(to), len(counts), len(got), len(want))
		}
		for _, c := range counts {
			if int(c.Rows) != len(want[c.Table]) {
				t.Errorf("%s: copied %d rows of %s; want %d", Redact(to), c.Rows, c.Table, len(want[c.Table]))
			}
		}
		for table, rows := range want {
			if !slices.Equal(got[table], rows) {
				t.Errorf("%s: table %s holds\n%s\nwant\n%s", Redact(to), table, strings.Join(got[table], "\n"), strings.Join(rows, "\n"))
			}
		}
		from = d
	}
}

// fillEveryTable stores at least one row in every table: through the
// store's own calls where one makes it plainly, else by INSERT.
func fillEveryTable(t *testing.T, d *DB) {
	t.Helper()
	ctx := context.Background()
	fillForCopy(t, d)
	at := time.Date(2026, 11, 20, 9, 30, 15, 0, time.UTC)
	ann, err := d.UserByName(ctx, "Ann")
	if err != nil {
		t.Fatal(err)
	}
	col := testCollection(t, d, "pages")
	target, err := d.AddPushTarget(ctx, ann.ID, "https://hooks.example/ann", col.SiteID, at)
	if err != nil {
		t.Fatal(err)
	}
	msg := []OutboxMessage{{UserID: ann.ID, TargetID: target.ID, Kind: OutboxWebhook, Address: target.URL, Message: `{"a":1}`}}
	if err := d.EnqueuePush(ctx, target.ID, target.AfterRun, target.AfterRun+1, msg, at); err != nil {
		t.Fatal(err)
	}
	if ok, err := d.TakeAttempt(ctx, ann.ID, target.ID, at, 10, 10); !ok || err != nil {
		t.Fatalf("take an attempt: %v, %v", ok, err)
	}
	if err := d.SetDigestEvery(ctx, ann.ID, EveryWeekly); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateAPIToken(ctx, ann.ID, "Ann's script", "hash-of-a-token", at); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateInvite(ctx, "invite", ann.ID, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CreateImportTitled(ctx, ann.ID, []ImportSite{{URL: "https://imported.example/", Rules: []ImportRule{{IgnoreText, "Visitors"}}}}, nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := d.TakeHost(ctx, "shrine.example:443", "worker-1", time.Hour); !ok || err != nil {
		t.Fatalf("take a host: %v, %v", ok, err)
	}
	stamp := fmtTime(at)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO processed (collection_id, url, processed_at) VALUES (?, 'https://pages.example/a', ?)`, []any{col.ID, stamp}},
		{`INSERT INTO outages (collection_id, started_at, last_failed_at, error) VALUES (?, ?, ?, 'timeout')`, []any{col.ID, stamp, stamp}},
		{`INSERT INTO snapshot_queue (site_id, url, collection_id, kind, datetime) VALUES (?, 'https://pages.example/b', ?, 'updated', ?)`,
			[]any{col.SiteID, col.ID, stamp}},
		{`INSERT INTO watched_pages (collection_id, url, depth, checked_at, by_hand) VALUES (?, 'https://pages.example/c', 1, ?, 1)`, []any{col.ID, stamp}},
		{`INSERT INTO ignore_rules (site_id, user_id, kind, pattern, created_at) VALUES (?, ?, 'text', 'Visitors:', ?)`, []any{col.SiteID, ann.ID, stamp}},
		{`INSERT INTO hidden_changes (change_id, user_id) SELECT min(id), ? FROM changes`, []any{ann.ID}},
		{`INSERT INTO share_cuts (site_id, cut_at, share_bytes, pruned_until) VALUES (?, ?, 1000, ?)`, []any{col.SiteID, stamp, stamp}},
	} {
		if _, err := d.w.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
}
