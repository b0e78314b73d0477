package db

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"
)

// TestSnapshotsAndTextDiffsAreStoredWithTheHarvest: a harvest's snapshots
// replace the site's earlier ones in the same transaction as its changes,
// whose text diffs are kept as they were stored; pages never read are
// absent; a batch larger than one query reads back whole.
func TestSnapshotsAndTextDiffsAreStoredWithTheHarvest(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	col := testCollection(t, d, "shrine")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	page := "https://shrine.example/cats.html"
	save := func(at time.Time, snap Snapshot, ch Change) {
		t.Helper()
		_, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
			Run:       Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at, FinishedAt: at},
			Changes:   []Change{ch},
			Snapshots: []Snapshot{snap},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	first := Snapshot{URL: page, FinalURL: page, ContentType: "text/html", Title: "Cats of the Month",
		Size: 2048, ContentHash: hash("c1"), Text: []byte{0x28, 0xb5, 0x2f, 0xfd, 0}, Method: "article", ETag: `"e1"`, FetchedAt: t0}
	save(t0, first, Change{URL: page, Kind: "created", Datetime: t0, TextChange: TextUnknown})
	second := first
	second.Title, second.ContentHash, second.Text, second.ETag, second.FetchedAt = "Cats of March", hash("c2")[:32], []byte("other"), `"e2"`, t0.Add(time.Hour)
	second.FinalURL = "https://shrine.example/cats/"
	save(t0.Add(time.Hour), second, Change{URL: page, Kind: "updated", Datetime: t0.Add(time.Hour),
		TextChange: TextChanged, Diff: `{"ops":[{"del":["sleeps"],"ins":["purrs"]}]}`})

	got, err := d.Snapshots(ctx, col.SiteID, []string{page, "https://shrine.example/never.html"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d snapshots, want 1: %v", len(got), got)
	}
	s := got[page]
	if s.Title != "Cats of March" || s.ContentHash != hash("c2")[:32] || string(s.Text) != "other" || s.ETag != `"e2"` ||
		!s.FetchedAt.Equal(t0.Add(time.Hour)) || s.Size != 2048 || s.ContentType != "text/html" ||
		s.Method != "article" || s.FinalURL != "https://shrine.example/cats/" {
		t.Errorf("snapshot = %+v", s)
	}
	changes, err := d.changesWhere(ctx, "ch.collection_id = ? ORDER BY ch.datetime", 0, col.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 || changes[0].TextChange != TextUnknown || changes[0].Diff != "" ||
		changes[1].TextChange != TextChanged || changes[1].Diff != `{"ops":[{"del":["sleeps"],"ins":["purrs"]}]}` {
		t.Errorf("changes = %+v", changes)
	}

	var many []Snapshot
	var urls []string
	for i := range maxSnapshotQuery + 7 {
		u := fmt.Sprintf("https://shrine.example/p%d.html", i)
		many = append(many, Snapshot{URL: u, FinalURL: u, ContentHash: hash(u), FetchedAt: t0})
		urls = append(urls, u)
	}
	if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t0, FinishedAt: t0}, Snapshots: many,
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := d.Snapshots(ctx, col.SiteID, urls); err != nil || len(got) != len(urls) {
		t.Errorf("read back %d of %d snapshots: %v", len(got), len(urls), err)
	} else if p := got[urls[3]]; p.FinalURL != urls[3] || p.ContentHash != hash(urls[3]) || p.Text != nil {
		t.Errorf("snapshot without a redirect or a text = %+v", p)
	}
	var rowBytes int
	if err := d.r.QueryRowContext(ctx, `SELECT length(final_url) + length(content_hash) FROM snapshots WHERE site_id = ? AND url = ?`,
		col.SiteID, urls[3]).Scan(&rowBytes); err != nil || rowBytes != sha256.Size {
		t.Errorf("final URL and hash take %d bytes, want %d (no URL, the hash's bytes): %v", rowBytes, sha256.Size, err)
	}
	bad := Snapshot{URL: page, ContentHash: "not hex", FetchedAt: t0}
	if _, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
		Run: Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: t0, FinishedAt: t0}, Snapshots: []Snapshot{bad},
	}); err == nil {
		t.Errorf("a snapshot whose hash is not hex was stored")
	}
	other := testCollection(t, d, "gallery")
	if got, err := d.Snapshots(ctx, other.SiteID, []string{page}); err != nil || len(got) != 0 {
		t.Errorf("another site sees %d snapshots: %v", len(got), err)
	}
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
