package db

import (
	"context"
	"testing"
	"time"
)

// TestGenerationFollowsWrites: reads leave the generation alone; a write
// through this DB changes it at once, and a write by another connection
// (another process, as `tidings harvest` beside serve) changes it soon.
func TestGenerationFollowsWrites(t *testing.T) {
	ctx := context.Background()
	d, path := openTest(t)
	g := d.Generation(ctx)
	if _, err := d.Sites(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(OtherWritersDelay + 10*time.Millisecond) // let it ask SQLite again
	// PostgreSQL's snapshot is the server's: a write to another database
	// on it (another test's, in a shared test cluster) moves it too, which
	// costs a cache its copy but never serves a stale one. Reads alone are
	// checked on SQLite, whose data_version is the file's.
	if got := d.Generation(ctx); got != g && d.eng != postgresEngine {
		t.Fatalf("generation moved from %d to %d with only reads", g, got)
	}

	site, err := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	if err != nil {
		t.Fatal(err)
	}
	afterExec := d.Generation(ctx)
	if afterExec == g {
		t.Fatal("a write through the DB left the generation as it was")
	}
	if _, err := d.SyncCollections(ctx, site.ID, []CollectionSpec{{Protocol: "resourcesync", Key: "https://example.org/"}}); err != nil {
		t.Fatal(err)
	}
	afterTx := d.Generation(ctx)
	if afterTx == afterExec {
		t.Fatal("a transaction through the DB left the generation as it was")
	}

	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.CreateSite(ctx, Site{URL: "https://example.net/", InputURL: "https://example.net/"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for d.Generation(ctx) == afterTx {
		if time.Now().After(deadline) {
			t.Fatal("a write by another connection never changed the generation")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
