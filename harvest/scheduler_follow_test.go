package harvest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"tidings/harvest"
	"tidings/internal/harvesttest"
)

func TestFailingSiteBacksOffAndRecovers(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	e := harvesttest.NewEnv(t, harvest.Options{Now: func() time.Time { return now }, Rand: func() float64 { return 0.5 }})
	e.Follow()
	for _, p := range []string{"/.well-known/resourcesync", "/shrine/capabilitylist.xml", "/gallery/caps.xml"} {
		e.Site.Fail(p, http.StatusServiceUnavailable)
	}
	for i, wait := range []time.Duration{5 * time.Minute, 10 * time.Minute, 20 * time.Minute} {
		rep := e.Harvest()
		s, _ := e.Store.SiteByID(context.Background(), rep.Site.ID)
		if s.Failures != i+1 || s.FailingSince == nil || !s.FailingSince.Equal(now.Add(-time.Duration(i)*time.Hour)) {
			t.Errorf("failure %d: failures %d since %v", i+1, s.Failures, s.FailingSince)
		}
		if got := s.NextHarvestAt.Sub(now); got != wait {
			t.Errorf("failure %d: next try in %v, want %v", i+1, got, wait)
		}
		now = now.Add(time.Hour)
	}
	for _, p := range []string{"/.well-known/resourcesync", "/shrine/capabilitylist.xml", "/gallery/caps.xml"} {
		e.Site.Fail(p, 0)
	}
	rep := e.Harvest()
	s, _ := e.Store.SiteByID(context.Background(), rep.Site.ID)
	if s.Failures != 0 || s.FailingSince != nil || s.NextHarvestAt.Sub(now) != 24*time.Hour {
		t.Errorf("after recovery: failures %d since %v next in %v", s.Failures, s.FailingSince, s.NextHarvestAt.Sub(now))
	}
}
