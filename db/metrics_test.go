package db

import (
	"context"
	"testing"
	"time"
)

func TestSchedule(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	now := time.Now()
	if got, err := d.Schedule(ctx, now, now.Add(-time.Hour)); err != nil || got != (Schedule{}) {
		t.Fatalf("no sites: %+v, %v", got, err)
	}
	for i, next := range []time.Duration{time.Hour, -time.Minute, -2 * time.Hour, 0} {
		s, err := d.CreateSite(ctx, Site{URL: "https://example.org/" + string(rune('a'+i)), InputURL: "https://example.org/"})
		if err != nil {
			t.Fatal(err)
		}
		// The last site is never harvested: due, and not yet overdue.
		if next != 0 {
			if err := d.SetNextHarvest(ctx, s.ID, now.Add(next)); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := d.Schedule(ctx, now, now.Add(-time.Hour))
	if want := (Schedule{Sites: 4, Due: 3, Overdue: 1}); err != nil || got != want {
		t.Errorf("Schedule = %+v, %v; want %+v", got, err, want)
	}
	got, err = d.Schedule(ctx, now, now.Add(time.Second))
	if want := (Schedule{Sites: 4, Due: 3, Overdue: 3}); err != nil || got != want {
		t.Errorf("with a cut-off after every creation: %+v, %v; want %+v", got, err, want)
	}
}
