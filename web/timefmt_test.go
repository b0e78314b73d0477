package web

import (
	"testing"
	"time"
)

func TestRelTime(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{now.Add(-20 * time.Second), "just now"},
		{now.Add(20 * time.Second), "in a moment"},
		{now.Add(-time.Minute), "1 minute ago"},
		{now.Add(-5*time.Minute - 59*time.Second), "5 minutes ago"},
		{now.Add(-3 * time.Hour), "3 hours ago"},
		{now.Add(23 * time.Hour), "in 23 hours"},
		{now.Add(-24 * time.Hour), "1 day ago"},
		{now.Add(-29 * 24 * time.Hour), "29 days ago"},
		{now.Add(-400 * 24 * time.Hour), "on 19 Oct 2025"},
	} {
		if got := relTime(tc.t, now); got != tc.want {
			t.Errorf("relTime(%s) = %q, want %q", now.Sub(tc.t), got, tc.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 collections", 1: "1 collection", 2: "2 collections"} {
		if got := plural(n, "collection", "collections"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}
