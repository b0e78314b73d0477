package harvest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tidings/db"
)

// TestHeldBytesAreBounded: whatever MaxChanges allows, the changes one
// harvest holds stay under maxHeldBytes, and those kept are the oldest.
func TestHeldBytesAreBounded(t *testing.T) {
	j := &CollectionRun{h: &Harvester{opts: Options{MaxChanges: 1000}}, s: newSession(nil, nil), seen: map[changeKey]bool{}}
	j.limitChanges()
	big := strings.Repeat("t", 1<<20) // shared, so only counted a hundred times
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j.now = start.Add(time.Hour)
	for i := 99; i >= 0; i-- { // newest first
		j.record(db.Change{URL: fmt.Sprintf("https://example.org/%02d", i), Kind: "updated",
			Datetime: start.Add(time.Duration(i) * time.Second), Title: big})
	}
	j.finishChanges()
	want := maxHeldBytes / (len(big) + changeOverhead + 30)
	if len(j.changes) != want {
		t.Fatalf("kept %d changes of 1 MB, want %d", len(j.changes), want)
	}
	for i, c := range j.changes {
		if want := fmt.Sprintf("https://example.org/%02d", i); c.URL != want {
			t.Fatalf("change %d is %s, want the oldest in order", i, c.URL)
		}
	}
	if !j.newest.Equal(j.changes[len(j.changes)-1].Datetime) {
		t.Errorf("newest = %s, want the newest kept", j.newest)
	}
	if len(j.warn.all()) != 1 {
		t.Errorf("warnings %q, want one", j.warn.all())
	}
}
