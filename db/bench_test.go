package db

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkSaveBigHarvest stores 50,000 new changes of one collection in
// one harvest, the store half of the harvest package's
// BenchmarkBigChangeList.
func BenchmarkSaveBigHarvest(b *testing.B) {
	ctx := context.Background()
	now := time.Now().UTC()
	changes := make([]Change, 50_000)
	kinds := []string{"created", "updated", "updated", "deleted"}
	for i := range changes {
		changes[i] = Change{
			URL:      fmt.Sprintf("http://127.0.0.1:43567/big/section-%03d/page-%06d.html", i%997, i),
			Kind:     kinds[i%len(kinds)],
			Datetime: now.Add(-time.Duration(len(changes)-i) * time.Second),
			Source:   "http://127.0.0.1:43567/big/changelist.xml",
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		d, err := Open(ctx, newTarget(b))
		if err != nil {
			b.Fatal(err)
		}
		site, err := d.CreateSite(ctx, Site{URL: "http://127.0.0.1:43567/", InputURL: "http://127.0.0.1:43567/big/"})
		if err != nil {
			b.Fatal(err)
		}
		cols, err := d.SyncCollections(ctx, site.ID, []CollectionSpec{{Protocol: "resourcesync", Key: "big", SourceURL: "http://127.0.0.1:43567/big/capabilitylist.xml"}})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		run, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{
			Run:     Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: now, FinishedAt: now},
			Changes: changes,
		})
		b.StopTimer()
		if err != nil || run.Changes != len(changes) {
			b.Fatalf("stored %d changes: %v", run.Changes, err)
		}
		d.Close()
		b.StartTimer()
	}
}
