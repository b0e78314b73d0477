package db

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// proseDiff is a diff's JSON as a harvest stores it: n removed and n added
// lines of words, drawn from a small vocabulary as a page's prose.
func proseDiff(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the a page site moon river stone light wind paper letter garden window music night story friend winter")
	line := func() string {
		ws := make([]string, 12)
		for k := range ws {
			ws[k] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, " ") + fmt.Sprintf(" %d.", r.IntN(10000))
	}
	var del, ins []string
	for range n {
		del, ins = append(del, line()), append(ins, line())
	}
	b, _ := json.Marshal(map[string]any{"ops": []map[string]any{{"del": del, "ins": ins}}, "added": n, "removed": n})
	return string(b)
}

// TestLongDiffsStoredCompressed: a long diff takes a fraction of its size
// in its row and reads back whole, through every way a diff is stored (a
// harvest's changes, a queued page's text filled in later); a short one
// and one written before compression are kept and read as they are; one
// that cannot be read shows as none, without failing the others.
func TestLongDiffsStoredCompressed(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "diffs")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	page := func(n string) string { return col.SiteURL + n }
	long, short := proseDiff(150), `{"added":1,"removed":0}`
	if len(long) < 20_000 {
		t.Fatalf("the long diff is %d bytes", len(long))
	}
	changes := []Change{
		{URL: page("long"), Kind: "updated", Datetime: t0, TextChange: TextChanged, Diff: long},
		{URL: page("short"), Kind: "updated", Datetime: t0, TextChange: TextChanged, Diff: short},
		{URL: page("before"), Kind: "updated", Datetime: t0, TextChange: TextChanged, Diff: "{}"},
		{URL: page("broken"), Kind: "updated", Datetime: t0, TextChange: TextChanged, Diff: "{}"},
		{URL: page("queued"), Kind: "updated", Datetime: t0},
	}
	if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run:     Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t0, FinishedAt: t0},
		Changes: changes,
		Pending: SnapshotQueue{Queue: []PendingText{{CollectionID: col.ID, URL: page("queued"), Kind: "updated", Datetime: t0}}},
	}); err != nil {
		t.Fatal(err)
	}
	// As rows written before diffs were compressed, and one damaged.
	for u, diff := range map[string]string{page("before"): long, page("broken"): compressedDiff + "bm90IGJyb3RsaQ=="} {
		if _, err := d.w.ExecContext(ctx, `UPDATE changes SET diff = ? WHERE url = ?`, diff, u); err != nil {
			t.Fatal(err)
		}
	}
	t1 := t0.Add(time.Hour)
	if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t1, FinishedAt: t1},
		Pending: SnapshotQueue{Fills: []TextFill{{PendingText: PendingText{CollectionID: col.ID, URL: page("queued"), Kind: "updated", Datetime: t0},
			TextChange: TextChanged, Diff: long}}},
	}); err != nil {
		t.Fatal(err)
	}

	stored := map[string]int{}
	rows, err := d.r.QueryContext(ctx, `SELECT url, octet_length(diff) FROM changes WHERE collection_id = ?`, col.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var u string
		var n int
		if err := rows.Scan(&u, &n); err != nil {
			t.Fatal(err)
		}
		stored[strings.TrimPrefix(u, col.SiteURL)] = n
	}
	rows.Close()
	t.Logf("a diff of %d bytes stored in %d", len(long), stored["long"])
	for _, u := range []string{"long", "queued"} {
		if stored[u] > len(long)/3 {
			t.Errorf("%s: a diff of %d bytes of prose stored in %d, over a third", u, len(long), stored[u])
		}
	}
	if stored["short"] != len(short) || stored["before"] != len(long) {
		t.Errorf("stored: short %d bytes (want %d), before %d (want %d)", stored["short"], len(short), stored["before"], len(long))
	}

	got := map[string]string{}
	err = d.ExportChanges(ctx, ExportFilter{}, func(c ExportedChange) error {
		got[strings.TrimPrefix(c.URL, col.SiteURL)] = c.Diff
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for u, want := range map[string]string{"long": long, "queued": long, "short": short, "before": long, "broken": ""} {
		if got[u] != want {
			t.Errorf("%s: read back %d bytes (%.40q…), want %d", u, len(got[u]), got[u], len(want))
		}
	}
	feed, err := d.FeedChanges(ctx, Scope{CollectionID: col.ID}, 10)
	if err != nil || len(feed) != 5 {
		t.Fatalf("feed changes: %d, %v", len(feed), err)
	}
	for _, c := range feed {
		if strings.HasSuffix(c.URL, "/long") && c.Diff != long {
			t.Errorf("the feed's change reads %d bytes of diff, want %d", len(c.Diff), len(long))
		}
	}
}

// TestStoredDiffBounds: what a stored diff may expand to is bounded, and
// text that compression would not shorten is kept as it is.
func TestStoredDiffBounds(t *testing.T) {
	if s := storedDiff(strings.Repeat("{", 2000)); !strings.HasPrefix(s, compressedDiff) || len(s) > 100 {
		t.Errorf("2000 braces stored as %d bytes: %.30q", len(s), s)
	}
	r := rand.New(rand.NewPCG(3, 4))
	noise := make([]byte, 4000)
	for k := range noise {
		noise[k] = byte(' ' + r.IntN(95))
	}
	if s := storedDiff(string(noise)); s != string(noise) {
		t.Errorf("text that compresses little was stored as %d bytes, not as itself", len(s))
	}
	bomb := storedDiff(strings.Repeat("a", maxDiffText+10))
	if _, err := readDiff(bomb); err == nil {
		t.Errorf("a stored diff expanding past %d bytes was read", maxDiffText)
	}
}
