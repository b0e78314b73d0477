package publish_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tidings/publish"
)

// BenchmarkPublishUnchanged is the common run: a site of 5,000 pages of
// 4 KiB each, nothing changed since the last run. Every page is hashed
// and the documents compared, none written.
func BenchmarkPublishUnchanged(b *testing.B) {
	dir := b.TempDir()
	page := strings.Repeat("x", 4096)
	for i := range 5000 {
		name := filepath.Join(dir, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("p%d.html", i))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(page), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	now := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	o := publish.Options{Dir: dir, BaseURL: "https://example.org/", Datetime: publish.DatetimeNow, Now: func() time.Time { return now }}
	if _, err := publish.Publish(context.Background(), o); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := publish.Publish(context.Background(), o)
		if err != nil || len(res.Written) != 0 {
			b.Fatalf("%v, wrote %q", err, res.Written)
		}
	}
}
