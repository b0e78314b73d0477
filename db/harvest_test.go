package db

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestSiteHarvestStoresStateAndLeavesTheSiteDue(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	site, _ := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	t0 := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	run, err := d.SaveSiteHarvest(ctx, Run{SiteID: site.ID, StartedAt: t0, FinishedAt: t0.Add(time.Second), Documents: 2,
		Error: "the Source Description at https://example.org/.well-known/resourcesync returned 500"},
		[]FetchState{
			{URL: "https://example.org/.well-known/resourcesync", ETag: `"a"`, LastModified: "Mon, 01 Jun 2026 07:00:00 GMT", Memo: "m", Digest: "d1", FetchedAt: t0},
			{URL: "https://example.org/robots.txt", FetchedAt: t0},
		})
	if err != nil || run.ID == 0 {
		t.Fatalf("site run %+v, %v", run, err)
	}
	got, _ := d.SiteByID(ctx, site.ID)
	if got.LastHarvestAt == nil || !got.LastHarvestAt.Equal(t0.Add(time.Second)) || got.LastError != run.Error {
		t.Errorf("site after its harvest: %+v", got)
	}
	// Only FinishSiteHarvest says when the site is next due.
	if due, _ := d.DueSites(ctx, t0); len(due) != 1 || got.NextHarvestAt != nil {
		t.Errorf("due sites %+v, next harvest %v; want the site still due", due, got.NextHarvestAt)
	}

	// A later fetch replaces the state of the same document.
	t1 := t0.Add(24 * time.Hour)
	if _, err := d.SaveSiteHarvest(ctx, Run{SiteID: site.ID, StartedAt: t1, FinishedAt: t1},
		[]FetchState{{URL: "https://example.org/.well-known/resourcesync", ETag: `"b"`, FetchedAt: t1}}); err != nil {
		t.Fatal(err)
	}
	states, err := d.FetchStates(ctx, site.ID)
	if err != nil || len(states) != 2 {
		t.Fatalf("fetch states %+v, %v", states, err)
	}
	sd := states["https://example.org/.well-known/resourcesync"]
	if sd.ETag != `"b"` || sd.LastModified != "" || sd.Memo != "" || sd.Digest != "" || !sd.FetchedAt.Equal(t1) {
		t.Errorf("replaced fetch state %+v", sd)
	}
	if got, _ := d.SiteByID(ctx, site.ID); got.LastError != "" {
		t.Errorf("a successful harvest left the error %q", got.LastError)
	}
	if other, err := d.FetchStates(ctx, site.ID+1); err != nil || len(other) != 0 {
		t.Errorf("fetch states of another site: %+v, %v", other, err)
	}

	if _, err := d.SaveSiteHarvest(ctx, Run{SiteID: 999, StartedAt: t1, FinishedAt: t1}, nil); err == nil {
		t.Error("a run of a site that does not exist was stored")
	}
}

func TestFinishSiteHarvestCountsFailingStreaks(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	site, _ := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	day := func(n int) time.Time { return t0.AddDate(0, 0, n) }
	steps := []struct {
		failed   bool
		failures int
		since    time.Time // zero: not failing
	}{
		{false, 0, time.Time{}},
		{true, 1, day(1)},
		{true, 2, day(1)},
		{true, 3, day(1)},
		{false, 0, time.Time{}},
		{true, 1, day(5)},
	}
	for i, s := range steps {
		failures, since, err := d.FinishSiteHarvest(ctx, site.ID, day(i), s.failed, day(i+1))
		if err != nil {
			t.Fatal(err)
		}
		if failures != s.failures || (since == nil) != s.since.IsZero() || (since != nil && !since.Equal(s.since)) {
			t.Errorf("harvest %d (failed %v): %d failures since %v; want %d since %v", i, s.failed, failures, since, s.failures, s.since)
		}
		got, _ := d.SiteByID(ctx, site.ID)
		if got.NextHarvestAt == nil || !got.NextHarvestAt.Equal(day(i+1)) {
			t.Errorf("harvest %d: next harvest %v, want %v", i, got.NextHarvestAt, day(i+1))
		}
	}
	if _, _, err := d.FinishSiteHarvest(ctx, 999, t0, false, t0); !errors.Is(err, ErrNotFound) {
		t.Errorf("finishing the harvest of an unknown site: %v, want ErrNotFound", err)
	}
}

func TestCancelledHarvestStoresNothing(t *testing.T) {
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	now := time.Now()
	_, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run:     Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: now, FinishedAt: now},
		Changes: []Change{{URL: "https://shrine.example/a", Kind: "updated", Datetime: now}},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a harvest stored under a cancelled context: %v, want context.Canceled", err)
	}
	got, err := d.CollectionByID(context.Background(), col.ID)
	if err != nil || got.Changes != 0 || got.LastHarvestAt != nil {
		t.Errorf("collection after a cancelled save: %+v, %v", got, err)
	}
}

// TestHarvestErrorsRollBack: whichever part of a harvest fails to store,
// nothing of it is kept. A trigger stands in for the failure (a full disk,
// a broken constraint) at each step of the transaction.
func TestHarvestErrorsRollBack(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	state := "after"
	h := CollectionHarvest{
		Run:         Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: now, FinishedAt: now, Error: "partly failed"},
		Changes:     []Change{{URL: "https://shrine.example/a", Kind: "updated", Datetime: now}},
		FetchStates: []FetchState{{URL: "https://shrine.example/cl.xml", ETag: `"1"`, FetchedAt: now}},
		Watermark:   &now,
		Pages:       []Page{{URL: "https://shrine.example/a", Hash: "h"}},
		Gone:        []string{"https://shrine.example/b"},
		Processed:   []string{"https://shrine.example/d1"},
		State:       &state,
	}
	for _, step := range []string{
		"INSERT ON runs",
		"UPDATE OF changes ON runs",
		"INSERT ON changes",
		"INSERT ON outages",
		"INSERT ON fetch_state",
		"INSERT ON pages",
		"DELETE ON pages",
		"INSERT ON processed",
		"UPDATE OF state ON collections",
		"UPDATE OF last_harvest_at ON collections",
	} {
		t.Run(step, func(t *testing.T) {
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := d.w.ExecContext(ctx, q, args...); err != nil {
					t.Fatal(err)
				}
			}
			if step == "DELETE ON pages" {
				// Gone deletes only a page that is there.
				exec(`INSERT INTO pages (collection_id, url) VALUES (?, 'https://shrine.example/b')`, col.ID)
				t.Cleanup(func() { exec(`DELETE FROM pages`) })
			}
			if testPostgres {
				table := step[strings.LastIndex(step, " ")+1:]
				exec(`CREATE OR REPLACE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`)
				exec(`CREATE TRIGGER refuse BEFORE ` + step + ` FOR EACH ROW EXECUTE FUNCTION refuse()`)
				t.Cleanup(func() { exec(`DROP TRIGGER refuse ON ` + table) })
			} else {
				exec(`CREATE TRIGGER refuse BEFORE ` + step + ` BEGIN SELECT RAISE(ABORT, 'refused'); END`)
				t.Cleanup(func() { exec(`DROP TRIGGER refuse`) })
			}
			_, err := d.SaveCollectionHarvest(ctx, h)
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Fatalf("save with %s refused: %v", step, err)
			}
			var n int
			err = d.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM changes) + (SELECT count(*) FROM runs) + (SELECT count(*) FROM outages)
	+ (SELECT count(*) FROM fetch_state) + (SELECT count(*) FROM pages WHERE url <> 'https://shrine.example/b') + (SELECT count(*) FROM processed)`).Scan(&n)
			if err != nil || n != 0 {
				t.Errorf("rows after a failed save: %d, %v; want none", n, err)
			}
			if got, _ := d.CollectionByID(ctx, col.ID); got.LastHarvestAt != nil || got.LastProcessedAt != nil || got.State != "" || got.LastError != "" {
				t.Errorf("collection after a failed save: %+v", got)
			}
		})
	}
	if _, err := d.SaveCollectionHarvest(ctx, h); err != nil {
		t.Fatalf("the same harvest with nothing refused: %v", err)
	}
	if got, _ := d.CollectionByID(ctx, col.ID); got.State != state || got.Changes != 1 || got.LastError != "partly failed" {
		t.Errorf("stored harvest: %+v", got)
	}
}

// TestHarvestsAtOnceDuplicateNothing: the same changes stored at once by
// two processes (serve's scheduler and `tidings harvest`) are stored once,
// and counted as new once.
func TestHarvestsAtOnceDuplicateNothing(t *testing.T) {
	ctx := context.Background()
	d, path := openTest(t)
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	col := testCollection(t, d, "shrine")
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	changes := make([]Change, 200)
	for i := range changes {
		changes[i] = Change{URL: fmt.Sprintf("https://shrine.example/%d", i), Kind: "updated", Datetime: at}
	}
	type result struct {
		run Run
		err error
	}
	results := make(chan result, 6)
	for i := range cap(results) {
		store := d
		if i%2 == 1 {
			store = other
		}
		go func() {
			run, err := store.SaveCollectionHarvest(ctx, CollectionHarvest{
				Run:     Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at, FinishedAt: at.Add(time.Duration(i) * time.Second)},
				Changes: changes,
			})
			results <- result{run, err}
		}()
	}
	fresh := 0
	for range cap(results) {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		fresh += r.run.Changes
	}
	got, err := d.CollectionByID(ctx, col.ID)
	if err != nil || got.Changes != len(changes) || fresh != len(changes) {
		t.Errorf("stored %d changes, %d counted new, %v; want %d of each", got.Changes, fresh, err, len(changes))
	}
	digests, _ := d.Digests(ctx, Scope{CollectionID: col.ID}, 10)
	if len(digests) != 1 || len(digests[0].Changes) != len(changes) {
		t.Errorf("%d digests; want one run with every change", len(digests))
	}
}
