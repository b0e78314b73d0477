package arc_test

import (
	"context"
	"database/sql"
	"reflect"
	"testing"

	"tidings/db"
	"tidings/internal/harvesttest"
)

// TestARCWithdrawalIsStoredWithTheHarvest: a harvest that withdraws the
// changes of a page turned private and stores the changes of another is
// one transaction, on each engine. A failure injected between the two
// (the database refuses the new page's change) leaves neither: the
// private page's change is still there, the new page's is not, and the
// next harvest does both.
func TestARCWithdrawalIsStoredWithTheHarvest(t *testing.T) {
	harvesttest.OnEachEngine(t, func(t *testing.T) {
		e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
		const path = "/arc-sitemap.json"
		e.site.Set(path, jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "",
			page{"url": "/a.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true},
			page{"url": "/drafts.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true}))
		e.follow("/")
		before := []string{"created /a.html 2026-03-09T10:00:00Z", "created /drafts.html 2026-03-09T10:00:00Z"}
		if got := e.changeLines(); !reflect.DeepEqual(got, before) {
			t.Fatalf("changes after the follow: %q", got)
		}
		e.site.Set(path, jsonType, e.site.sitemapJSON(ts("2026-03-11T06:00:00Z"), "",
			page{"url": "/a.html", "lastmod": "2026-03-09T10:00:00Z", "ai_indexable": true},
			page{"url": "/drafts.html", "lastmod": "2026-03-11T05:00:00Z", "ai_indexable": false},
			page{"url": "/b.html", "lastmod": "2026-03-11T05:00:00Z", "ai_indexable": true}))
		e.clock.Set(ts("2026-03-11T12:00:00Z"))

		raw, pg := openRaw(t, e.target)
		refuseChangesOf(t, raw, pg, "%/b.html")
		site, err := e.store.SiteByURL(context.Background(), e.site.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.h.HarvestSite(context.Background(), site); err == nil {
			t.Fatal("the harvest stored its changes although the database refused one")
		}
		if got := e.changeLines(); !reflect.DeepEqual(got, before) {
			t.Errorf("changes after a harvest that failed to store: %q, want them as they were, the private page's withdrawal undone with the rest", got)
		}

		allowChanges(t, raw, pg)
		e.harvest()
		want := []string{"created /a.html 2026-03-09T10:00:00Z", "created /b.html 2026-03-11T05:00:00Z"}
		if got := e.changeLines(); !reflect.DeepEqual(got, want) {
			t.Errorf("changes after the next harvest: %q, want %q", got, want)
		}
	})
}

// openRaw opens a connection of the test's own to the database at
// target, to change its schema as no part of tidings does; pg, it is a
// PostgreSQL database.
func openRaw(t *testing.T, target string) (raw *sql.DB, pg bool) {
	t.Helper()
	driver, pg := "sqlite3", db.IsPostgres(target)
	if pg {
		driver = "pgx"
	}
	raw, err := sql.Open(driver, target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw, pg
}

// refuseChangesOf makes the database refuse to store a change of a page
// whose address is LIKE pattern: the failure of a store that breaks in
// the middle of a harvest's transaction.
func refuseChangesOf(t *testing.T, raw *sql.DB, pg bool, pattern string) {
	t.Helper()
	stmts := []string{`CREATE TRIGGER refuse_change BEFORE INSERT ON changes WHEN NEW.url LIKE '` + pattern + `'
BEGIN SELECT RAISE(ABORT, 'injected failure'); END`}
	if pg {
		stmts = []string{
			`CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`,
			`CREATE TRIGGER refuse_change BEFORE INSERT ON changes FOR EACH ROW WHEN (NEW.url LIKE '` + pattern + `') EXECUTE FUNCTION refuse_change()`,
		}
	}
	for _, s := range stmts {
		if _, err := raw.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

// allowChanges undoes refuseChangesOf.
func allowChanges(t *testing.T, raw *sql.DB, pg bool) {
	t.Helper()
	stmt := `DROP TRIGGER refuse_change`
	if pg {
		stmt = `DROP TRIGGER refuse_change ON changes`
	}
	if _, err := raw.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}
