package db

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/internal/pgtest"
)

// TestCopyBetweenEngines: a database copied SQLite → PostgreSQL → SQLite
// (SQLite → SQLite without a PostgreSQL server) holds the same rows in
// every table at every hop, ids, blobs and times included; a copy into a
// database that holds something is refused; new rows in a copy get new
// ids.
func TestCopyBetweenEngines(t *testing.T) {
	if testPostgres {
		t.Skip("the SQLite round copies to PostgreSQL and back")
	}
	ctx := context.Background()
	src, _ := openTest(t)
	fillForCopy(t, src)
	want := dumpTables(t, src)
	hops := []string{filepath.Join(t.TempDir(), "copy.db")}
	if server, _ := pgtest.Server(); server != "" {
		hops = []string{pgtest.NewDatabase(t), filepath.Join(t.TempDir(), "back.db")}
	}
	from := src
	for hop, to := range hops {
		counts, err := Copy(ctx, from, to)
		if err != nil {
			t.Fatalf("copy to %s: %v", Redact(to), err)
		}
		if i := slices.IndexFunc(counts, func(c TableCount) bool { return c.Table == "changes" }); i < 0 || counts[i].Rows != 3 {
			t.Errorf("copied %v; want the 3 changes counted", counts)
		}
		d, err := Open(ctx, to)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		got := dumpTables(t, d)
		for table, rows := range want {
			if !slices.Equal(got[table], rows) {
				t.Errorf("%s: table %s holds\n%s\nwant\n%s", Redact(to), table, strings.Join(got[table], "\n"), strings.Join(rows, "\n"))
			}
		}
		if _, err := Copy(ctx, from, to); err == nil || !strings.Contains(err.Error(), "already holds data") {
			t.Errorf("a second copy into %s: %v; want a refusal", Redact(to), err)
		}
		u := fmt.Sprintf("https://new%d.example/", hop)
		site, err := d.CreateSite(ctx, Site{URL: u, InputURL: u})
		if err != nil || site.ID <= int64(2+hop) {
			t.Errorf("a new site in the copy: %+v, %v; want an id after the copied ones", site, err)
		}
		from = d
		want = dumpTables(t, d)
	}
}

// fillForCopy stores a little of everything: sites, collections, runs,
// changes (history too), pages, a snapshot's compressed text, users with
// sessions and follows, a setting.
func fillForCopy(t *testing.T, d *DB) {
	t.Helper()
	ctx := context.Background()
	col := testCollection(t, d, "shrine")
	testCollection(t, d, "gallery")
	at := time.Date(2026, 11, 20, 9, 30, 15, 123456789, time.UTC)
	_, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at.Add(-time.Second), FinishedAt: at, Warnings: []string{"one", "two"}},
		Changes: []Change{
			{URL: "https://shrine.example/a", Kind: "created", Datetime: at.Add(-time.Hour), Title: "A — ünïcode", Tags: []string{"x", "y"}, FromLastmod: true},
			{URL: "https://shrine.example/b", Kind: "updated", Datetime: at, TextChange: TextChanged, Diff: `{"d":1}`},
			{URL: "https://shrine.example/old", Kind: "deleted", Datetime: at.AddDate(-1, 0, 0), History: true},
		},
		FetchStates: []FetchState{{URL: "https://shrine.example/cl.xml", ETag: `"e"`, FetchedAt: at}},
		Pages:       []Page{{URL: "https://shrine.example/a", Modified: &at, Hash: "h", Title: "A"}},
		Snapshots:   []Snapshot{{URL: "https://shrine.example/a", ContentHash: "00ff10", Text: []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 1, 2}, FetchedAt: at}},
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := d.CreateFirstUser(ctx, "Ann", "hash", "token")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Follow(ctx, u.ID, col.SiteID); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateSession(ctx, "session-hash", u.ID, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := d.SetPublicURL(ctx, "https://tidings.example/", at); err != nil {
		t.Fatal(err)
	}
}

// dumpTables returns every row of every table, each value with its type,
// rows sorted, so that two databases compare whatever the engine.
func dumpTables(t *testing.T, d *DB) map[string][]string {
	t.Helper()
	ctx := context.Background()
	tables, err := d.tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, table := range tables {
		rows, err := d.r.QueryContext(ctx, `SELECT * FROM `+quoteIdent(table))
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		var lines []string
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			var fields []string
			for i, v := range vals {
				// As SQLite holds them: PostgreSQL's instants and
				// flags are of types of their own.
				switch x := v.(type) {
				case time.Time:
					v = fmtTime(x)
				case bool:
					v = int64(0)
					if x {
						v = int64(1)
					}
				}
				fields = append(fields, fmt.Sprintf("%s=%T:%v", cols[i], v, v))
			}
			slices.Sort(fields)
			lines = append(lines, strings.Join(fields, " "))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(lines)
		out[table] = lines
	}
	return out
}
