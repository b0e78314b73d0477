package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestParseWrk reads reports captured from wrk 4.1 run with --latency.
func TestParseWrk(t *testing.T) {
	tests := []struct {
		file string
		want wrkResult
	}{
		{"wrk-latency.txt", wrkResult{Requests: 41557, Elapsed: 10070 * time.Millisecond, P99: 138750 * time.Microsecond}},
		{"wrk-non2xx.txt", wrkResult{Requests: 21821, Elapsed: 2100 * time.Millisecond, P99: 16700 * time.Microsecond, Errors: 21821}},
		{"wrk-socket-errors.txt", wrkResult{Requests: 585, Elapsed: 2 * time.Second, P99: 93350 * time.Microsecond, Errors: 885}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseWrk(string(b))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := parseWrk("Running 10s test @ http://127.0.0.1:1/\n  41557 requests in 10.07s, 1.27GB read\n"); err == nil {
		t.Error("a report without a latency distribution was accepted")
	}
}

func TestWrkResultFigures(t *testing.T) {
	a := wrkResult{Requests: 200000, Elapsed: 10 * time.Second, P99: 3 * time.Millisecond}
	b := wrkResult{Requests: 123456, Elapsed: 10 * time.Second, P99: 4500 * time.Microsecond, Errors: 2}
	if got, want := a.add(b).String(), "16,173 req/s, p99 4.5 ms, 2 errors"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := a.String(), "20,000 req/s, p99 3.0 ms"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
