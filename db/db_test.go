package db

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func openTest(t *testing.T) (*DB, string) {
	t.Helper()
	target := newTarget(t)
	d, err := Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, target
}

func TestOpenMigratesOnceAndRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	d, path := openTest(t)
	if v := schemaVersion(t, d); v != SchemaVersion {
		t.Fatalf("schema version = %d; want %d", v, SchemaVersion)
	}
	d.Close()
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	setSchemaVersion(t, again, 999)
	again.Close()
	_, err = Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "schema version 999") {
		t.Fatalf("opening a newer database: %v, want a refusal naming the version", err)
	}
}

// TestOpenAtOnceOnANewDatabase: processes started together on a new
// database (`tidings follow` run in parallel) all open it, each migration
// applied once.
func TestOpenAtOnceOnANewDatabase(t *testing.T) {
	path := newTarget(t)
	errs := make(chan error, 8)
	for range cap(errs) {
		go func() {
			d, err := Open(context.Background(), path)
			if err == nil {
				err = d.Close()
			}
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	d, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if v := schemaVersion(t, d); v != SchemaVersion {
		t.Errorf("schema version = %d; want %d", v, SchemaVersion)
	}
}

func TestReadPoolIsReadOnly(t *testing.T) {
	d, _ := openTest(t)
	_, err := d.r.ExecContext(context.Background(), `INSERT INTO sites (url, input_url, created_at) VALUES ('x', 'x', 'x')`)
	if err == nil {
		t.Fatal("the read pool accepted a write")
	}
}

func TestCreateSiteTwice(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	first, err := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/a"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/b"})
	if !errors.Is(err, ErrAlreadyExists) || again.ID != first.ID {
		t.Fatalf("second create: %+v, %v; want the existing site and ErrAlreadyExists", again, err)
	}
	if _, err := d.SiteByID(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing site: %v, want ErrNotFound", err)
	}
}

func TestSaveCollectionHarvestDeduplicatesAndAdvancesTogether(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	site, err := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := d.SyncCollections(ctx, site.ID, []CollectionSpec{{Protocol: "resourcesync", Key: "https://example.org/", SourceURL: "https://example.org/caps.xml", Title: "Example"}})
	if err != nil || len(cols) != 1 {
		t.Fatalf("sync: %v, %v", cols, err)
	}
	col := cols[0]
	at := time.Date(2026, 11, 20, 18, 0, 0, 0, time.FixedZone("CET", 3600))
	ch := Change{CollectionID: col.ID, URL: "https://example.org/a", Kind: "updated", Datetime: at, Source: "https://example.org/cl.xml"}
	old := Change{CollectionID: col.ID, URL: "https://example.org/b", Kind: "created", Datetime: at.AddDate(-1, 0, 0), History: true}
	now := time.Now()
	h := CollectionHarvest{
		Run:         Run{SiteID: site.ID, CollectionID: col.ID, StartedAt: now, FinishedAt: now},
		Changes:     []Change{ch, old},
		FetchStates: []FetchState{{URL: "https://example.org/cl.xml", ETag: `"1"`, FetchedAt: now}},
		Watermark:   &at,
	}
	run, err := d.SaveCollectionHarvest(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if run.Changes != 1 || run.Backfilled != 1 {
		t.Errorf("first save: %d changes, %d backfilled; want 1 and 1", run.Changes, run.Backfilled)
	}
	// The same instant in another zone is the same change.
	h.Changes = []Change{{CollectionID: col.ID, URL: ch.URL, Kind: ch.Kind, Datetime: at.UTC()}}
	run, err = d.SaveCollectionHarvest(ctx, h)
	if err != nil || run.Changes != 0 {
		t.Fatalf("second save: %d new changes, %v; want 0", run.Changes, err)
	}
	got, err := d.CollectionByID(ctx, col.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Changes != 1 || got.History != 1 || got.LastProcessedAt == nil || !got.LastProcessedAt.Equal(at) || got.LastSuccessAt == nil {
		t.Errorf("collection after saves: %+v", got)
	}
	states, err := d.FetchStates(ctx, site.ID)
	if err != nil || states["https://example.org/cl.xml"].ETag != `"1"` {
		t.Errorf("fetch state: %+v, %v", states, err)
	}
	feed, err := d.FeedChanges(ctx, Scope{CollectionID: col.ID}, 10)
	if err != nil || len(feed) != 1 || feed[0].URL != ch.URL {
		t.Errorf("feed changes: %+v, %v; history must stay out of the feed", feed, err)
	}
}

func TestFailedTransactionStoresNothing(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	site, _ := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	cols, _ := d.SyncCollections(ctx, site.ID, []CollectionSpec{{Protocol: "resourcesync", Key: "k", SourceURL: "s"}})
	now := time.Now()
	_, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run: Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: now, FinishedAt: now},
		Changes: []Change{
			{CollectionID: cols[0].ID, URL: "https://example.org/a", Kind: "updated", Datetime: now},
			{CollectionID: cols[0].ID, URL: "https://example.org/b", Kind: "renamed", Datetime: now},
		},
		Watermark: &now,
	})
	if err == nil {
		t.Fatal("a change of an unknown kind was stored")
	}
	var n int
	if err := d.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM changes) + (SELECT count(*) FROM runs)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("rows after a failed save: %d, %v; want none", n, err)
	}
	got, _ := d.CollectionByID(ctx, cols[0].ID)
	if got.LastProcessedAt != nil {
		t.Errorf("watermark moved in a failed save")
	}
}

func TestPagesProcessedAndStateMoveWithTheHarvest(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	site, _ := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	cols, _ := d.SyncCollections(ctx, site.ID, []CollectionSpec{{Protocol: "scp", Key: "blog", SourceURL: "s"}})
	now := time.Now()
	state := `{"snapshot":"2026-11-01"}`
	run := Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: now, FinishedAt: now}
	_, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run: run,
		Changes: []Change{{CollectionID: cols[0].ID, URL: "https://example.org/a", Kind: "created", Datetime: now,
			Title: "A", Author: "Ann", Language: "en", Tags: []string{"x", "y"}}},
		Pages:     []Page{{URL: "https://example.org/a", Modified: &now, Hash: "h1"}, {URL: "https://example.org/b", Hash: "h2"}},
		Processed: []string{"https://example.org/d1.scp.gz"},
		State:     &state,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.SaveCollectionHarvest(ctx, CollectionHarvest{Run: run, Gone: []string{"https://example.org/b"},
		Pages: []Page{{URL: "https://example.org/a", Hash: "h3"}}})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := d.Pages(ctx, cols[0].ID)
	if err != nil || len(pages) != 1 || pages["https://example.org/a"].Hash != "h3" || pages["https://example.org/a"].Modified != nil {
		t.Errorf("pages: %+v, %v", pages, err)
	}
	done, err := d.Processed(ctx, cols[0].ID)
	if err != nil || !done["https://example.org/d1.scp.gz"] || len(done) != 1 {
		t.Errorf("processed: %v, %v", done, err)
	}
	col, _ := d.CollectionByID(ctx, cols[0].ID)
	if col.State != state {
		t.Errorf("state = %q", col.State)
	}
	changes, _ := d.FeedChanges(ctx, Scope{CollectionID: cols[0].ID}, 5)
	if len(changes) != 1 || changes[0].Author != "Ann" || changes[0].Language != "en" || len(changes[0].Tags) != 2 {
		t.Errorf("change fields: %+v", changes)
	}
}
