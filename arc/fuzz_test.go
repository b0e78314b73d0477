package arc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzParse checks that no input panics the parser, and that whatever it
// accepts keeps its promises: absolute http(s) page URLs, UTC times, no
// summary kept for a private page, priorities within 0–1.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, strings.HasSuffix(name, ".yaml"))
	}
	f.Add([]byte(`{"pages": [{"url": "https://e.org/", "ai_indexable": true, "lastmod": "2025-01-01 10:00 +5"}]}`), false)
	f.Add([]byte("a: &a [*a]\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, yaml bool) {
		format := JSON
		if yaml {
			format = YAML
		}
		sm, err := Parse(bytes.NewReader(data), format)
		if err != nil {
			if sm != nil {
				t.Fatal("a sitemap and an error")
			}
			return
		}
		if sm.GeneratedAt.Location() != time.UTC {
			t.Errorf("generated_at not UTC: %v", sm.GeneratedAt)
		}
		for _, p := range sm.Pages {
			if !pageURL(p.URL) {
				t.Errorf("page URL %q accepted", p.URL)
			}
			if p.Lastmod != nil && p.Lastmod.Location() != time.UTC {
				t.Errorf("lastmod not UTC: %v", p.Lastmod)
			}
			if p.Private() && (p.Summary != "" || p.Title != "" || len(p.Tags) > 0) {
				t.Errorf("private page kept its summary: %+v", p)
			}
			if p.Priority != nil && (*p.Priority < 0 || *p.Priority > 1) {
				t.Errorf("priority %v accepted", *p.Priority)
			}
		}
	})
}
