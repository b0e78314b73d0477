package db

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Pages past a harvest's budget wait in the queue, latest change first; a
// later harvest fills their changes in and takes them off, in the same
// transaction as its own changes.
func TestSnapshotQueue(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	page := func(n string) string { return "https://shrine.example/" + n + ".html" }
	var changes []Change
	var queue []PendingText
	for i, n := range []string{"a", "b", "c"} {
		at := t0.Add(time.Duration(i) * time.Hour)
		changes = append(changes, Change{URL: page(n), Kind: "updated", Datetime: at, Title: strings.ToUpper(n)})
		queue = append(queue, PendingText{CollectionID: col.ID, URL: page(n), Kind: "updated", Datetime: at})
	}
	changes[1].Title = ""
	save := func(h CollectionHarvest) {
		t.Helper()
		h.Run = Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t0, FinishedAt: t0}
		if _, err := d.SaveCollectionHarvest(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	save(CollectionHarvest{Changes: changes, Pending: SnapshotQueue{Queue: queue}})
	due, err := d.PendingTexts(ctx, col.SiteID, col.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := urlsOf(due); !slices.Equal(got, []string{page("c"), page("b")}) || !due[0].Datetime.Equal(t0.Add(2*time.Hour)) || due[0].Kind != "updated" {
		t.Errorf("pending, 2 at most: %v (%+v)", got, due)
	}
	other := testCollection(t, d, "gallery")
	if due, err := d.PendingTexts(ctx, other.SiteID, other.ID, 10); err != nil || len(due) != 0 {
		t.Errorf("another site's collection has %d pending: %v", len(due), err)
	}

	fill := TextFill{PendingText: queue[1], Title: "Bee", TextChange: TextChanged, Diff: `{"added":1}`}
	keep := TextFill{PendingText: queue[2], Title: "Not this", TextChange: TextUnchanged}
	save(CollectionHarvest{Pending: SnapshotQueue{Done: []string{page("b"), page("c")}, Fills: []TextFill{fill, keep}}})
	if due, err := d.PendingTexts(ctx, col.SiteID, col.ID, 10); err != nil || !slices.Equal(urlsOf(due), []string{page("a")}) {
		t.Errorf("pending after two were read: %v, %v", urlsOf(due), err)
	}
	got, err := d.changesWhere(ctx, "ch.collection_id = ? ORDER BY ch.datetime", 0, col.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].TextChange != TextUnknown ||
		got[1].Title != "Bee" || got[1].TextChange != TextChanged || got[1].Diff != `{"added":1}` ||
		got[2].Title != "C" || got[2].TextChange != TextUnchanged {
		t.Errorf("changes after the fills = %+v", got)
	}

	// A later change of a pending page replaces it; finished and queued
	// again in one harvest, it stays queued.
	later := PendingText{CollectionID: col.ID, URL: page("a"), Kind: "updated", Datetime: t0.Add(48 * time.Hour)}
	save(CollectionHarvest{Pending: SnapshotQueue{Done: []string{page("a")}, Queue: []PendingText{later}}})
	if due, err := d.PendingTexts(ctx, col.SiteID, col.ID, 10); err != nil || len(due) != 1 || !due[0].Datetime.Equal(later.Datetime) {
		t.Errorf("pending after a later change: %+v, %v", due, err)
	}

	// Past Keep, the pages of the oldest changes leave the queue.
	var more []PendingText
	for i := range 5 {
		more = append(more, PendingText{CollectionID: col.ID, URL: page(strconv.Itoa(i)), Kind: "created", Datetime: t0.Add(time.Duration(i) * time.Minute)})
	}
	save(CollectionHarvest{Pending: SnapshotQueue{Queue: more, Keep: 3}})
	if due, err := d.PendingTexts(ctx, col.SiteID, col.ID, 10); err != nil || !slices.Equal(urlsOf(due), []string{page("a"), page("4"), page("3")}) {
		t.Errorf("pending past Keep: %v, %v", urlsOf(due), err)
	}
}

func urlsOf(list []PendingText) []string {
	var out []string
	for _, p := range list {
		out = append(out, p.URL)
	}
	return out
}

// Snapshots stored before hashes were kept as bytes read back the same,
// smaller; the migration is found by what it does, wherever the list has
// put it.
func TestMigrateSnapshotsSmaller(t *testing.T) {
	sqliteOnly(t)
	ctx := context.Background()
	step := slices.IndexFunc(migrations, func(m step) bool { return strings.Contains(m.sqlite, "CREATE TABLE snapshot_queue") })
	if step < 0 {
		t.Fatal("no migration creates snapshot_queue")
	}
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite3", "file:"+url.PathEscape(path)+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:step] {
		if _, err := raw.ExecContext(ctx, m.sqlite); err != nil {
			t.Fatal(err)
		}
	}
	page, moved := "https://shrine.example/cats.html", "https://shrine.example/dogs.html"
	for _, q := range []string{
		"PRAGMA user_version = " + strconv.Itoa(step),
		`INSERT INTO sites (id, url, input_url, created_at) VALUES (1, 'https://shrine.example/', 'https://shrine.example/', '2026-03-01T00:00:00.000000000Z')`,
		`INSERT INTO snapshots (site_id, url, final_url, status, content_type, title, size, content_hash, text_hash, text, etag, last_modified, fetched_at)
VALUES (1, '` + page + `', '` + page + `', 200, 'text/html; charset=UTF-8', 'Cats', 2048, '` + hash("c") + `', '` + hash("t") + `', x'28b52ffd00', '"e1"', 'Mon, 02 Mar 2026 10:00:00 GMT', '2026-03-02T10:00:00.000000000Z'),
	(1, '` + moved + `', 'https://shrine.example/dogs/', 200, 'image/png', 'Dogs', 10, '` + hash("d") + `', '', NULL, '', 'Mon, 02 Mar 2026 11:00:00 GMT', '2026-03-02T11:00:00.000000000Z')`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := d.Snapshots(ctx, 1, []string{page, moved})
	if err != nil {
		t.Fatal(err)
	}
	cats, dogs := got[page], got[moved]
	if cats.FinalURL != page || cats.ContentHash != hash("c")[:32] || string(cats.Text) != "\x28\xb5\x2f\xfd\x00" || cats.ContentType != "text/html" ||
		cats.ETag != `"e1"` || cats.LastModified != "" || cats.Title != "Cats" || cats.Method != "" || cats.Size != 2048 {
		t.Errorf("page with an ETag after the migration: %+v", cats)
	}
	if dogs.FinalURL != "https://shrine.example/dogs/" || dogs.ContentHash != hash("d")[:32] || dogs.ContentType != "image/png" ||
		dogs.LastModified != "Mon, 02 Mar 2026 11:00:00 GMT" || dogs.Text != nil {
		t.Errorf("redirected image without an ETag after the migration: %+v", dogs)
	}
	var hashBytes int
	if err := d.r.QueryRowContext(ctx, `SELECT length(content_hash) + length(final_url) FROM snapshots WHERE url = ?`, page).Scan(&hashBytes); err != nil || hashBytes != 16 {
		t.Errorf("hash and final URL take %d bytes, want 16: %v", hashBytes, err)
	}
}

// TestSnapshotQueueManyPages: a harvest queueing more pages than one
// statement takes queues each once; of a page given twice the later
// entry stands, and a page queued before is replaced. Finishing more
// pages than one statement takes leaves only the others.
func TestSnapshotQueueManyPages(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	page := func(i int) string { return "https://shrine.example/p" + strconv.Itoa(i) + ".html" }
	save := func(q SnapshotQueue) {
		t.Helper()
		h := CollectionHarvest{Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t0, FinishedAt: t0}, Pending: q}
		if _, err := d.SaveCollectionHarvest(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	save(SnapshotQueue{Queue: []PendingText{{CollectionID: col.ID, URL: page(0), Kind: "created", Datetime: t0.Add(-time.Hour)}}})
	n := 2*queueBatch + 3
	var queue []PendingText
	for i := range n {
		queue = append(queue, PendingText{CollectionID: col.ID, URL: page(i), Kind: "updated", Datetime: t0.Add(time.Duration(i) * time.Minute)})
	}
	// Given again later in the same harvest, dated later, among the
	// pages of the same statement.
	queue = slices.Insert(queue, 7, PendingText{CollectionID: col.ID, URL: page(5), Kind: "deleted", Datetime: t0.Add(time.Duration(n+1) * time.Minute)})
	save(SnapshotQueue{Queue: queue})
	due, err := d.PendingTexts(ctx, col.SiteID, col.ID, 10*n)
	if err != nil {
		t.Fatal(err)
	}
	if len(due) != n {
		t.Fatalf("%d pages pending, want %d", len(due), n)
	}
	if due[0].URL != page(5) || due[0].Kind != "deleted" {
		t.Errorf("newest pending %s %s, want %s deleted: the later entry of a page given twice", due[0].URL, due[0].Kind, page(5))
	}
	for _, p := range due {
		if p.URL == page(0) && (p.Kind != "updated" || !p.Datetime.Equal(t0)) {
			t.Errorf("the page queued before: %s at %v, want updated at %v", p.Kind, p.Datetime, t0)
		}
	}

	// Finished, past one statement too: every page but the last three.
	var done []string
	for i := range n - 3 {
		done = append(done, page(i))
	}
	save(SnapshotQueue{Done: done})
	due, err = d.PendingTexts(ctx, col.SiteID, col.ID, 10*n)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := urlsOf(due), []string{page(n - 1), page(n - 2), page(n - 3)}; !slices.Equal(got, want) {
		t.Errorf("pending after %d were finished: %q, want %q", len(done), got, want)
	}
}
