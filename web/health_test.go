package web

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tidings/db"
)

func TestHealthz(t *testing.T) {
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	beat := time.Now()
	tests := []struct {
		name      string
		heartbeat func() time.Time
		code      int
		want      string
	}{
		{"no scheduler", nil, http.StatusOK, "scheduler: off"},
		{"fresh heartbeat", func() time.Time { return beat }, http.StatusOK, "scheduler: ok"},
		{"stalled scheduler", func() time.Time { return beat.Add(-time.Hour) }, http.StatusServiceUnavailable, "scheduler: stalled"},
		{"never ticked", func() time.Time { return time.Time{} }, http.StatusServiceUnavailable, "scheduler: stalled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(store, Options{BaseURL: testBase, SchedulerHeartbeat: tt.heartbeat, SchedulerStale: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			rec := serve(t, s.Handler(), "/healthz")
			if rec.Code != tt.code || !strings.Contains(rec.Body.String(), tt.want) || !strings.Contains(rec.Body.String(), "database: ok") {
				t.Errorf("GET /healthz: %d %q; want %d with %q", rec.Code, rec.Body, tt.code, tt.want)
			}
		})
	}
	s, err := New(store, Options{BaseURL: testBase})
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	if rec := serve(t, s.Handler(), "/healthz"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "database: db: not answering") {
		t.Errorf("GET /healthz with the database closed: %d %q", rec.Code, rec.Body)
	}
}
