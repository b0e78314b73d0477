package imports

import (
	"os"
	"testing"
)

// FuzzParse: whatever the bytes, Parse returns a plan or an error, never
// panics, and keeps its bounds.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"urls.yaml", "list.txt", "changedetection/changedetection.json",
		"changedetection/3f2b6a8e-1c4d-4e5f-9a0b-2c3d4e5f6a7b/watch.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(backupZip(f, "testdata/changedetection"))
	f.Add([]byte(`{"tidings_export": 1, "follows": [{"url": "https://a.example/", "rules": [{"kind": "text", "pattern": "abc"}]}], "notifications": {"digest": "daily"}}`))
	f.Add([]byte(`<opml version="2.0"><body><outline xmlUrl="https://a.example/f"/></body></opml>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		if len(p.Sites) > MaxEntries {
			t.Errorf("%d sites", len(p.Sites))
		}
		for _, s := range p.Sites {
			if len(s.Rules) > MaxRules || len(s.Tags) > MaxTags || len(s.URL) > maxURL {
				t.Errorf("site over its bounds: %d rules, %d tags, %d bytes", len(s.Rules), len(s.Tags), len(s.URL))
			}
		}
	})
}
