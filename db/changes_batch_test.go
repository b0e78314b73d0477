package db

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestSaveChangesPastABatch: a harvest of more changes than one INSERT
// takes (on PostgreSQL, changeBatch) stores each once, in the order of
// the table's unique key, so that ids grow along it; a change stored
// before and one given twice are skipped; history has no run; the flags,
// tags and dates stored are those given; and the run counts the feed's
// changes and history apart.
func TestSaveChangesPastABatch(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	t0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	stored := Change{URL: "https://shrine.example/p00000", Kind: "created", Datetime: t0.Add(-time.Hour)}
	first := storeRun(t, d, col, t0, "", stored)

	n := changeBatch*2 + 3
	var changes []Change
	wantFeed, wantHistory := 0, 0
	for i := n - 1; i >= 0; i-- { // given in the reverse of the key's order
		c := Change{URL: fmt.Sprintf("https://shrine.example/p%05d", i), Kind: "created",
			Datetime: t0.Add(time.Duration(i) * time.Microsecond), FromLastmod: i%3 == 0, History: i%4 == 0}
		if i%5 == 0 {
			c.Tags = []string{"a", fmt.Sprint(i)}
		}
		changes = append(changes, c)
		if i == 7 {
			changes = append(changes, c) // twice
		}
		if c.History {
			wantHistory++
		} else {
			wantFeed++
		}
	}
	changes = append(changes, stored) // stored before
	run := storeRun(t, d, col, t0.Add(time.Hour), "", changes...)
	if run.Changes != wantFeed || run.Backfilled != wantHistory {
		t.Errorf("run counts %d changes and %d history, want %d and %d", run.Changes, run.Backfilled, wantFeed, wantHistory)
	}

	rows, err := d.r.QueryContext(ctx, `SELECT url, run_id, from_lastmod, tags FROM changes WHERE collection_id = ? AND run_id IS DISTINCT FROM ? ORDER BY id`, col.ID, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var urls []string
	for rows.Next() {
		var u, tags string
		var runID sql.NullInt64
		var lastmod bool
		if err := rows.Scan(&u, &runID, &lastmod, &tags); err != nil {
			t.Fatal(err)
		}
		var i int
		fmt.Sscanf(u, "https://shrine.example/p%d", &i)
		if runID.Valid != (i%4 != 0) || runID.Valid && runID.Int64 != run.ID {
			t.Errorf("%s: run %v, want %d unless history (%v)", u, runID, run.ID, i%4 == 0)
		}
		if lastmod != (i%3 == 0) {
			t.Errorf("%s: from_lastmod %v", u, lastmod)
		}
		if want := map[bool]string{true: fmt.Sprintf("a\n%d", i)}[i%5 == 0]; tags != want {
			t.Errorf("%s: tags %q, want %q", u, tags, want)
		}
		urls = append(urls, u)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(urls) != n {
		t.Fatalf("%d changes stored by the run, want %d", len(urls), n)
	}
	if !slices.IsSorted(urls) {
		t.Errorf("ids do not follow the pages' order")
	}
	var dates int
	err = d.ExportChanges(ctx, ExportFilter{CollectionID: col.ID}, func(c ExportedChange) error {
		var i int
		fmt.Sscanf(c.URL, "https://shrine.example/p%d", &i)
		if c.Datetime.Equal(t0.Add(time.Duration(i) * time.Microsecond)) {
			dates++
		}
		return nil
	})
	if err != nil || dates != n {
		t.Errorf("%d of %d changes exported with the date given (%v)", dates, n, err)
	}
}
